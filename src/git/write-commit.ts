/**
 * Writing a commit with git plumbing and a private index file, so that neither the repository's index nor its
 * working tree is touched and concurrent commits cannot interfere. Author and committer dates are fixed: the same
 * parent, files and message always give the same sha, which is what lets a resumed run reproduce its commits.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HsearchError } from "../core/errors";
import { git, gitLine } from "./git-exec";

const ZERO_SHA = "0000000000000000000000000000000000000000";

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

/** `@<epoch> +0000`: git's own date format, parsed the same way by every git version. */
export function gitDate(iso: string): string {
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) throw new HsearchError("bad_input", `not an ISO 8601 date: '${iso}'`);
  return `@${Math.floor(millis / 1000)} +0000`;
}

/** Writes the blobs and the commit object; returns the commit sha. Refs are the caller's business. */
export async function writeCommit(repo: string, spec: CommitSpec): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), "hsearch-index-"));
  const env = { GIT_INDEX_FILE: join(scratch, "index") };
  try {
    if (spec.parent !== null) await git(repo, ["read-tree", spec.parent], { env });
    const records: string[] = [];
    for (const edit of spec.edits) {
      if (edit.content === null) {
        records.push(`0 ${ZERO_SHA}\t${edit.path}\0`);
        continue;
      }
      const blob = await gitLine(repo, ["hash-object", "-w", "--stdin"], { input: edit.content });
      records.push(`${edit.executable ? "100755" : "100644"} ${blob}\t${edit.path}\0`);
    }
    if (records.length > 0)
      await git(repo, ["update-index", "-z", "--index-info"], { input: records.join(""), env });
    const tree = await gitLine(repo, ["write-tree"], { env });
    const date = gitDate(spec.date);
    const parentArgs = spec.parent === null ? [] : ["-p", spec.parent];
    return await gitLine(repo, ["commit-tree", tree, ...parentArgs, "-F", "-"], {
      input: spec.message,
      env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
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
