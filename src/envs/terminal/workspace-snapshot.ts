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
  await walk({ root, prefix: "", previous, into: snapshot, skip: () => false }, "");
  return snapshot;
}

/**
 * Places of a file system the host sees at `hostRoot` (a container's merged root), keyed by absolute path
 * (`/etc/nginx/nginx.conf`), so they never meet a workspace-relative key. A place is a file or a folder with all
 * below it; `/` is the whole file system. `skip(path)` leaves a folder out with all below it (the workspace,
 * the kernel's places). A place below a link or a file is absent: the host never follows a link the episode made.
 */
export async function snapshotPlaces(
  hostRoot: string,
  places: readonly string[],
  skip: (path: string) => boolean,
  previous?: WorkspaceSnapshot,
): Promise<Map<string, EntryFingerprint>> {
  const into = new Map<string, EntryFingerprint>();
  const walking: Walk = { root: hostRoot, prefix: "/", previous, into, skip };
  for (const place of places) {
    const relative = place.replace(/^\/+/, "");
    if (relative === "") {
      await walk(walking, "");
      continue;
    }
    if (!(await ancestorsAreFolders(hostRoot, relative))) continue;
    const name = relative.slice(relative.lastIndexOf("/") + 1);
    const parent = relative.includes("/") ? relative.slice(0, relative.lastIndexOf("/")) : "";
    await visit(walking, parent, name);
  }
  return into;
}

/** Is every folder above `relative` a real folder (no link, no file) under `root`? */
async function ancestorsAreFolders(root: string, relative: string): Promise<boolean> {
  const parts = relative.split("/");
  for (let depth = 1; depth < parts.length; depth++) {
    const stat = await lstat(join(root, ...parts.slice(0, depth))).catch(() => undefined);
    if (!stat?.isDirectory()) return false;
  }
  return true;
}

interface Walk {
  root: string;
  /** Put before every path to make its key ("" for the workspace, "/" for a file system's places). */
  prefix: string;
  previous: WorkspaceSnapshot | undefined;
  into: Map<string, EntryFingerprint>;
  skip: (key: string) => boolean;
}

async function walk(walking: Walk, relative: string): Promise<void> {
  const entries = await readdir(join(walking.root, relative), { withFileTypes: true });
  for (const entry of entries) await visit(walking, relative, entry.name);
}

async function visit(walking: Walk, parent: string, name: string): Promise<void> {
  const { root, prefix, previous, into } = walking;
  const path = parent === "" ? name : `${parent}/${name}`;
  const key = `${prefix}${path}`;
  if (walking.skip(key)) return;
  const absolute = join(root, path);
  const stat = await lstat(absolute, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    // Gone between the listing and the look (a place that does not exist is simply not there).
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!stat) return;
  const fingerprint = `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}:${stat.mode}`;
  const mode = Number(stat.mode & 0o7777n);
  if (stat.isDirectory()) {
    into.set(key, { kind: "dir", stat: fingerprint, hash: "dir", mode });
    await walk(walking, path);
  } else if (stat.isSymbolicLink()) {
    into.set(key, { kind: "symlink", stat: fingerprint, hash: `link:${await readlink(absolute)}`, mode });
  } else if (stat.isFile()) {
    const before = previous?.get(key);
    const hash =
      before?.kind === "file" && before.stat === fingerprint ? before.hash : await hashFile(absolute);
    into.set(key, { kind: "file", stat: fingerprint, hash, mode });
  } else {
    // FIFOs, sockets: never opened (a FIFO would block).
    into.set(key, { kind: "other", stat: fingerprint, hash: "other", mode });
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
