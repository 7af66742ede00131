/**
 * Writing a commit as git objects alone (objects.ts): neither the repository's index nor its working tree is
 * touched, so concurrent commits cannot interfere. Author and committer dates are fixed: the same parent, files and
 * message always give the same sha, which is what lets a resumed run reproduce its commits.
 */
import { HsearchError } from "../core";
import { git } from "./git-exec";
import { memoizedByObject } from "./object-memo";
import {
  type FlatTreeEntry,
  readCommitObject,
  readTreeRecursive,
  writeBlobObject,
  writeCommitObject,
  writeTreeObjects,
} from "./objects";

export interface IndexEdit {
  path: string;
  /** New bytes, or null to delete the path. */
  content: Buffer | string | null;
  executable?: boolean;
}

export interface CommitSpec {
  /** Parent commit sha, or null for a root commit. */
  parent: string | null;
  edits: IndexEdit[];
  message: string;
  /** ISO 8601 time used as both author and committer date. */
  date: string;
}

/** Seconds since the epoch of an ISO 8601 time: git's own date, the same on every machine. */
function commitSeconds(iso: string): number {
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) throw new HsearchError("bad_input", `not an ISO 8601 date: '${iso}'`);
  return Math.floor(millis / 1000);
}

/** The files of a commit (path → mode and blob), read once per commit. */
async function commitFiles(repo: string, commit: string): Promise<FlatTreeEntry[]> {
  const entries = await memoizedByObject(repo, ["flat-tree", commit], async () =>
    readTreeRecursive(repo, (await readCommitObject(repo, commit)).tree),
  );
  return entries.map((entry) => ({ ...entry }));
}

/** Writes the blobs, trees and the commit object; returns the commit sha. Refs are the caller's business. */
export async function writeCommit(repo: string, spec: CommitSpec): Promise<string> {
  const seconds = commitSeconds(spec.date);
  const files = new Map<string, FlatTreeEntry>();
  if (spec.parent !== null)
    for (const entry of await commitFiles(repo, spec.parent)) files.set(entry.path, entry);
  for (const edit of spec.edits) {
    if (edit.content === null) {
      files.delete(edit.path);
      continue;
    }
    const object = await writeBlobObject(repo, edit.content);
    files.set(edit.path, { path: edit.path, mode: edit.executable ? "100755" : "100644", object });
  }
  const tree = await writeTreeObjects(repo, [...files.values()]);
  return writeCommitObject(repo, {
    tree,
    parents: spec.parent === null ? [] : [spec.parent],
    message: spec.message,
    seconds,
  });
}

/**
 * Points `refs/heads/<branch>` at `sha` only if the branch does not exist yet. A branch already at `sha` is fine (a
 * resumed run re-committing the same proposal); a branch elsewhere is a conflict.
 */
export async function createBranchAt(repo: string, branch: string, sha: string): Promise<void> {
  const ref = `refs/heads/${branch}`;
  const created = await git(repo, ["update-ref", ref, sha, ""], { allowExitCodes: [1, 128] });
  if (created.exitCode === 0) return;
  const existing = await git(repo, ["rev-parse", "--verify", "--quiet", ref], { allowExitCodes: [1] });
  const current = existing.stdout.trim();
  if (current === sha) return;
  throw new HsearchError(
    "conflict",
    current.length > 0
      ? `branch ${branch} already exists at ${current.slice(0, 12)}, not at ${sha.slice(0, 12)}`
      : `cannot create branch ${branch} in ${repo}`,
    { file: repo, field: branch },
  );
}
