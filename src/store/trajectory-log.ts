/**
 * Trajectories as JSONL, one line `{"key": …, "trajectory": …}` per rollout, appended and fsynced before the rollout's
 * database row commits. Crash analysis:
 * - crash before the fsync: a torn last line and no row; the next append cuts the torn tail off first;
 * - crash after the fsync, before the commit: a whole line and no row; resume re-runs the rollout and appends it
 *   again, so readers take the last line of a key (the one a row can point at);
 * - after the commit the row points at bytes already on disk, so a row never points at a missing line.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { canonicalJson, canonicalJsonOfMembers, HsearchError, sha256 } from "../core";
import type { Trajectory } from "../harness";
import { firstIssue, trajectorySchema } from "../harness";

/**
 * The format of a trajectory line, written on every line. A line without one was written before lines were
 * versioned and has format 1's shape; a later format is refused by name rather than misread.
 */
export const TRAJECTORY_FORMAT = 1;

export interface TrajectoryEntry {
  key: string;
  trajectory: Trajectory;
}

/** Where one trajectory's line sits, and the hash of its canonical JSON (checked on every read). */
export interface LinePointer {
  offset: number;
  length: number;
  sha256: string;
}

export function trajectoryHash(trajectory: Trajectory): string {
  // `from_cache` says how the result was paid for, not what it is: a rollout cut short by a kill and run again on
  // resume may find its first calls in the request cache, and must hash (and so count in the run's content) the same.
  const { from_cache: _paid, ...result } = trajectory;
  return sha256(canonicalJson(result));
}

/** Size of the file once a torn last line (no final newline) is cut off. */
function cutTornTail(fd: number): number {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const read = readSync(fd, chunk, 0, end - start, start);
    const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) {
      end = start + newline + 1;
      break;
    }
    end = start;
  }
  if (end !== size) ftruncateSync(fd, end);
  return end;
}

function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Appends the entries durably (fsync) and returns where each line went. */
export function appendTrajectoryLines(file: string, entries: TrajectoryEntry[]): LinePointer[] {
  if (entries.length === 0) return [];
  const fd = openSync(file, "a+");
  try {
    const isNew = fstatSync(fd).size === 0;
    let offset = cutTornTail(fd);
    const pointers: LinePointer[] = [];
    const lines: Buffer[] = [];
    for (const entry of entries) {
      // The trajectory is canonicalised once, for its hash and inside its line.
      const trajectoryText = canonicalJson(entry.trajectory);
      const text = canonicalJsonOfMembers({
        format: canonicalJson(TRAJECTORY_FORMAT),
        key: canonicalJson(entry.key),
        trajectory: trajectoryText,
      });
      const line = Buffer.from(`${text}\n`, "utf8");
      // A free rollout's line is hashed without `from_cache` (trajectoryHash): canonicalised once more, only then.
      const hash = entry.trajectory.from_cache ? trajectoryHash(entry.trajectory) : sha256(trajectoryText);
      pointers.push({ offset, length: line.length, sha256: hash });
      lines.push(line);
      offset += line.length;
    }
    const data = Buffer.concat(lines);
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written);
    fsyncSync(fd);
    // A new file's directory entry must be durable too, or the file could vanish with the lines in it.
    if (isNew) fsyncDirectory(dirname(file));
    return pointers;
  } finally {
    closeSync(fd);
  }
}

function corrupt(file: string, message: string): HsearchError {
  return new HsearchError("conflict", `trajectory log ${file} is inconsistent with run.db: ${message}`, {
    file,
  });
}

/** Reads the line a database row points at, checking its key and hash. */
export function readTrajectoryAt(file: string, key: string, pointer: LinePointer): Trajectory {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    throw corrupt(file, `cannot open it (${String(error)})`);
  }
  try {
    const buffer = Buffer.alloc(pointer.length);
    const read = readSync(fd, buffer, 0, pointer.length, pointer.offset);
    if (read !== pointer.length) throw corrupt(file, `line of ${key} at byte ${pointer.offset} is cut short`);
    const entry = parseLine(file, buffer.toString("utf8"), pointer.offset);
    if (entry.key !== key) throw corrupt(file, `byte ${pointer.offset} holds ${entry.key}, not ${key}`);
    if (trajectoryHash(entry.trajectory) !== pointer.sha256) throw corrupt(file, `hash mismatch for ${key}`);
    return entry.trajectory;
  } finally {
    closeSync(fd);
  }
}

function parseLine(file: string, line: string, at: number): TrajectoryEntry {
  let entry: { key?: unknown; trajectory?: unknown; format?: unknown };
  try {
    entry = JSON.parse(line);
  } catch {
    throw corrupt(file, `malformed line at byte ${at}`);
  }
  // A line written before lines were versioned has no format: it is format 1 if its trajectory has format 1's shape.
  const format = entry.format ?? 1;
  if (format !== TRAJECTORY_FORMAT)
    throw new HsearchError(
      "conflict",
      `trajectory log ${file}: the line at byte ${at} has format ${JSON.stringify(format)}; this hsearch reads format ${TRAJECTORY_FORMAT}`,
      { file },
    );
  if (typeof entry.key !== "string" || entry.trajectory === undefined || entry.trajectory === null)
    throw corrupt(file, `malformed line at byte ${at}`);
  const checked = trajectorySchema.safeParse(entry.trajectory);
  if (!checked.success) {
    const { path, message } = firstIssue(checked.error);
    throw new HsearchError(
      "bad_input",
      `the trajectory of ${entry.key} (line at byte ${at}) does not match trajectory format ${TRAJECTORY_FORMAT}: ${message}`,
      { file, field: `trajectory.${path}`, cause: checked.error },
    );
  }
  return { key: entry.key, trajectory: checked.data };
}

/**
 * Every trajectory of a file by key, the last line of a key winning. A torn last line is ignored (it was never
 * committed); a malformed complete line is corruption and throws. A missing file is an empty log.
 */
export function readTrajectoryLog(file: string): Map<string, Trajectory> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
  const entries = new Map<string, Trajectory>();
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  let at = 0;
  for (const line of complete.split("\n")) {
    if (line.length > 0) {
      const entry = parseLine(file, line, at);
      entries.set(entry.key, entry.trajectory);
    }
    at += Buffer.byteLength(line, "utf8") + 1;
  }
  return entries;
}
