/**
 * Reading a commit's files without touching the repository's working tree or index: objects named by their full id
 * are read in-process (objects.ts); other names (a branch, a tag, a short sha) are resolved by `git rev-parse`.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { HsearchError, relativePathProblem, resolveInside } from "../core";
import { git } from "./git-exec";
import { isFullObjectId, memoizedByObject } from "./object-memo";
import { readBlobObject, readCommitObject, readTreeRecursive } from "./objects";

export type TreeEntryKind = "file" | "executable" | "symlink" | "submodule";

export interface TreeEntry {
  path: string;
  mode: string;
  kind: TreeEntryKind;
  object: string;
}

const KIND_BY_MODE: Record<string, TreeEntryKind> = {
  "100644": "file",
  "100755": "executable",
  "120000": "symlink",
  "160000": "submodule",
};

/** The full sha of a commit-ish (branch, tag, sha prefix); not_found when it names no commit. */
export async function resolveCommit(repo: string, ref: string): Promise<string> {
  // A full id names one commit for good: checking once that it is one is enough.
  if (isFullObjectId(ref))
    return memoizedByObject(repo, ["commit", ref], async () => {
      try {
        await commitObject(repo, ref);
      } catch (error) {
        if (error instanceof HsearchError && error.code === "not_found")
          throw new HsearchError("not_found", `no commit '${ref}' in the harness repository ${repo}`, {
            file: repo,
            cause: error,
          });
        throw error;
      }
      return ref;
    });
  return revParseCommit(repo, ref);
}

async function revParseCommit(repo: string, ref: string): Promise<string> {
  const result = await git(
    repo,
    ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`],
    {
      allowExitCodes: [1],
    },
  );
  const sha = result.stdout.trim();
  if (result.exitCode !== 0 || sha.length === 0) {
    throw new HsearchError("not_found", `no commit '${ref}' in the harness repository ${repo}`, {
      file: repo,
    });
  }
  return sha;
}

/** A commit's object (tree, parents, message) by its full id, read once per process. */
export function commitObject(repo: string, sha: string) {
  return memoizedByObject(repo, ["commit-object", sha], () => readCommitObject(repo, sha));
}

/** The tree id of a commit: two candidates with the same tree hash have identical files. */
export async function treeHash(repo: string, commit: string): Promise<string> {
  const sha = await resolveCommit(repo, commit);
  return (await commitObject(repo, sha)).tree;
}

/** Every entry of a commit's tree, recursively, sorted by path as git sorts them. */
export async function listTree(repo: string, commit: string): Promise<TreeEntry[]> {
  const sha = await resolveCommit(repo, commit);
  const entries = await memoizedByObject(repo, ["ls-tree", sha], () => lsTree(repo, sha));
  return entries.map((entry) => ({ ...entry }));
}

async function lsTree(repo: string, sha: string): Promise<TreeEntry[]> {
  let entries: { path: string; mode: string; object: string }[];
  try {
    entries = await readTreeRecursive(repo, (await commitObject(repo, sha)).tree);
  } catch (error) {
    // A crafted tree (a `..` entry) is listed by git as it is, so that the caller's checks name the whole path.
    if (!(error instanceof HsearchError && error.code === "bad_input")) throw error;
    entries = await gitLsTree(repo, sha);
  }
  return entries.map(({ path, mode, object }) => {
    const kind = KIND_BY_MODE[mode];
    if (kind === undefined) throw new HsearchError("internal", `unknown git mode ${mode} in ${repo}`);
    return { path, mode, kind, object };
  });
}

async function gitLsTree(
  repo: string,
  sha: string,
): Promise<{ path: string; mode: string; object: string }[]> {
  const { stdout } = await git(repo, ["ls-tree", "-r", "-z", "--full-tree", sha]);
  return stdout
    .split("\0")
    .filter((record) => record.length > 0)
    .map((record) => {
      const tab = record.indexOf("\t");
      const [mode = "", , object = ""] = record.slice(0, tab).split(" ");
      return { path: record.slice(tab + 1), mode, object };
    });
}

/** Contents of blobs by object id. */
async function readBlobs(repo: string, objects: string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  for (const object of objects) blobs.set(object, await readBlobObject(repo, object));
  return blobs;
}

/**
 * A harness tree holds regular files at plain relative paths only; anything else (a symlink, a submodule, a crafted
 * `..` or `.git` entry) is refused rather than followed, before any of it reaches the filesystem.
 */
function assertHarnessEntries(repo: string, commit: string, entries: TreeEntry[]): void {
  for (const entry of entries) {
    const problem = relativePathProblem(entry.path);
    if (problem) {
      throw new HsearchError("bad_input", `commit ${commit} has an unsafe path '${entry.path}': ${problem}`, {
        file: repo,
        field: entry.path,
      });
    }
    if (entry.kind !== "file" && entry.kind !== "executable") {
      throw new HsearchError("bad_input", `commit ${commit} has a ${entry.kind} at '${entry.path}'`, {
        file: repo,
        field: entry.path,
      });
    }
  }
}

export interface HarnessFile {
  path: string;
  executable: boolean;
  content: Buffer;
}

/** Every file of a commit with its bytes. */
export async function readFiles(repo: string, commit: string): Promise<HarnessFile[]> {
  const sha = await resolveCommit(repo, commit);
  const files = await memoizedByObject(repo, ["files", sha], () => readCommitFiles(repo, sha));
  // Copies: a caller may change what it was given.
  return files.map((file) => ({ ...file, content: Buffer.from(file.content) }));
}

async function readCommitFiles(repo: string, commit: string): Promise<HarnessFile[]> {
  const entries = await listTree(repo, commit);
  assertHarnessEntries(repo, commit, entries);
  const blobs = await readBlobs(repo, [...new Set(entries.map((entry) => entry.object))]);
  return entries.map((entry) => ({
    path: entry.path,
    executable: entry.kind === "executable",
    content: blobs.get(entry.object) ?? Buffer.alloc(0),
  }));
}

/** A commit's files as text by path. */
export async function readTree(repo: string, commit: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of await readFiles(repo, commit)) files[file.path] = file.content.toString("utf8");
  return files;
}

/** Refuses a destination that holds anything: writing into a populated directory could follow its symlinks. */
async function assertEmptyDestination(destDir: string): Promise<void> {
  let existing: string[];
  try {
    existing = await readdir(destDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new HsearchError("bad_input", `cannot use '${destDir}' as a destination: ${String(error)}`, {
      file: destDir,
      cause: error,
    });
  }
  if (existing.length > 0) {
    throw new HsearchError("conflict", `destination '${destDir}' is not empty`, { file: destDir });
  }
}

/** Writes a commit's files into `destDir` (missing or empty) without touching the repository. */
export async function materialize(repo: string, commit: string, destDir: string): Promise<string[]> {
  const files = await readFiles(repo, commit);
  await assertEmptyDestination(destDir);
  await mkdir(destDir, { recursive: true });
  for (const file of files) {
    // The tree was checked above; resolving again guards the destination itself (no symlink under it).
    const target = resolveInside(destDir, file.path, "harness file");
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content, { mode: file.executable ? 0o755 : 0o644, flag: "wx" });
  }
  return files.map((file) => file.path);
}
