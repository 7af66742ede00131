/**
 * What changed in a workspace between two tool calls. A snapshot maps every entry (workspace-relative path) to a
 * fingerprint; the content hash of a regular file is computed only when its stat fingerprint (size, mtime, ctime,
 * inode, mode) changed since the previous snapshot, so a call that touches nothing costs one walk of lstat calls.
 * ctime is part of the fingerprint because a command can reset mtime (`touch -d`) but not ctime.
 *
 * The walk runs on the host, after the sandbox's processes are all gone, and never follows symlinks: a link
 * is recorded by its target text, never read through.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

export interface EntryFingerprint {
  kind: "file" | "dir" | "symlink" | "other";
  /** size, times, inode and mode: equal stats mean equal content. */
  stat: string;
  /** sha256 of a file's bytes, a link's target, or the kind for directories and special files. */
  hash: string;
  mode: number;
}

export type WorkspaceSnapshot = ReadonlyMap<string, EntryFingerprint>;

export interface WorkspaceChanges {
  created: string[];
  modified: string[];
  deleted: string[];
}

/** Snapshot `root`, reusing content hashes of `previous` for entries whose stat fingerprint is unchanged. */
export async function snapshotWorkspace(
  root: string,
  previous?: WorkspaceSnapshot,
): Promise<WorkspaceSnapshot> {
  const snapshot = new Map<string, EntryFingerprint>();
  await walk(root, "", previous, snapshot);
  return snapshot;
}

async function walk(
  root: string,
  relative: string,
  previous: WorkspaceSnapshot | undefined,
  into: Map<string, EntryFingerprint>,
): Promise<void> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  for (const entry of entries) {
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const absolute = join(root, path);
    const stat = await lstat(absolute, { bigint: true });
    const fingerprint = `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}:${stat.mode}`;
    const mode = Number(stat.mode & 0o7777n);
    if (stat.isDirectory()) {
      into.set(path, { kind: "dir", stat: fingerprint, hash: "dir", mode });
      await walk(root, path, previous, into);
    } else if (stat.isSymbolicLink()) {
      into.set(path, { kind: "symlink", stat: fingerprint, hash: `link:${await readlink(absolute)}`, mode });
    } else if (stat.isFile()) {
      const before = previous?.get(path);
      const hash =
        before?.kind === "file" && before.stat === fingerprint ? before.hash : await hashFile(absolute);
      into.set(path, { kind: "file", stat: fingerprint, hash, mode });
    } else {
      // FIFOs, sockets: never opened (a FIFO would block).
      into.set(path, { kind: "other", stat: fingerprint, hash: "other", mode });
    }
  }
}

async function hashFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const hash = createHash("sha256");
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

/**
 * Pure: entries created, modified (content, link target, kind or permission bits changed) and deleted, each sorted.
 * Directories appear as "dir/" so that `mkdir` and `rmdir` count as changes; a directory is "modified" only when
 * its permission bits change (its entries are reported themselves).
 */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceChanges {
  const label = (path: string, entry: EntryFingerprint) => (entry.kind === "dir" ? `${path}/` : path);
  const created: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (!old) created.push(label(path, entry));
    else if (old.kind !== entry.kind) {
      deleted.push(label(path, old));
      created.push(label(path, entry));
    } else if (entry.kind !== "dir" && (old.hash !== entry.hash || old.mode !== entry.mode))
      modified.push(path);
    else if (entry.kind === "dir" && old.mode !== entry.mode) modified.push(label(path, entry));
  }
  for (const [path, entry] of before) if (!after.has(path)) deleted.push(label(path, entry));
  return { created: created.sort(), modified: modified.sort(), deleted: deleted.sort() };
}

export function hasChanges(changes: WorkspaceChanges): boolean {
  return changes.created.length + changes.modified.length + changes.deleted.length > 0;
}
