/**
 * Git objects read and written in-process (isomorphic-git) instead of by a git process each: a search writes a
 * commit per proposal and reads the incumbent's files, tree and message again and again, and each git process is a
 * fork of the whole Node process (its cost grows with the heap) that stalls every episode in flight. The objects are
 * git's own, byte for byte: the same parent, files, message and date give the sha `git commit-tree` gives
 * (test/git/objects.test.ts compares them). Ref updates stay with git itself (atomic, locked, logged: refs.ts).
 */
import fs from "node:fs";
import isomorphicGit from "isomorphic-git";
import { HsearchError } from "../core";
import { HSEARCH_AUTHOR } from "./git-exec";

/** One file of a commit's tree, recursively from its root. */
export interface FlatTreeEntry {
  path: string;
  mode: string;
  object: string;
}

export interface CommitObject {
  tree: string;
  parents: string[];
  /** The raw message, as stored. */
  message: string;
}

const TREE_MODE = "040000";
const SUBMODULE_MODE = "160000";

function readFailure(repo: string, what: string, error: unknown): HsearchError {
  const code = (error as { code?: unknown }).code;
  // isomorphic-git refuses a tree entry such as `..` or `.git` (one git itself would never write) while parsing.
  if (code === "UnsafeFilepathError")
    return new HsearchError("bad_input", `${what} in ${repo} has an unsafe entry: ${String(error)}`, {
      file: repo,
      cause: error,
    });
  if (code === "NotFoundError" || code === "ObjectTypeError")
    return new HsearchError("not_found", `no ${what} in the harness repository ${repo}`, {
      file: repo,
      cause: error,
    });
  return new HsearchError("internal", `cannot read ${what} in ${repo}: ${String(error)}`, {
    file: repo,
    cause: error,
  });
}

/** A commit object by its full id; not_found when the id names no commit. */
export async function readCommitObject(repo: string, oid: string): Promise<CommitObject> {
  try {
    const { commit } = await isomorphicGit.readCommit({ fs, dir: repo, oid });
    return { tree: commit.tree, parents: [...commit.parent], message: commit.message };
  } catch (error) {
    throw readFailure(repo, `commit ${oid}`, error);
  }
}

/** Every non-tree entry under a tree, recursively, by path from its root, in git's order. */
export async function readTreeRecursive(repo: string, tree: string): Promise<FlatTreeEntry[]> {
  const entries: FlatTreeEntry[] = [];
  const walk = async (oid: string, prefix: string): Promise<void> => {
    let listed: Awaited<ReturnType<typeof isomorphicGit.readTree>>;
    try {
      listed = await isomorphicGit.readTree({ fs, dir: repo, oid });
    } catch (error) {
      throw readFailure(repo, `tree ${oid}`, error);
    }
    for (const entry of listed.tree) {
      const path = `${prefix}${entry.path}`;
      if (entry.mode === TREE_MODE) await walk(entry.oid, `${path}/`);
      else entries.push({ path, mode: entry.mode, object: entry.oid });
    }
  };
  // Depth first in each tree's own order is `ls-tree -r`'s order.
  await walk(tree, "");
  return entries;
}

/** A blob's bytes by its id. */
export async function readBlobObject(repo: string, oid: string): Promise<Buffer> {
  try {
    const { blob } = await isomorphicGit.readBlob({ fs, dir: repo, oid });
    return Buffer.from(blob);
  } catch (error) {
    throw readFailure(repo, `blob ${oid}`, error);
  }
}

/** Writes the blob (a loose object, as `git hash-object -w`) and returns its id. */
export function writeBlobObject(repo: string, content: Buffer | string): Promise<string> {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return isomorphicGit.writeBlob({ fs, dir: repo, blob: new Uint8Array(bytes) });
}

/**
 * Writes the trees of a set of files (path → mode and blob id) bottom-up and returns the root tree's id: what
 * `git write-tree` writes for an index holding exactly these files.
 */
export async function writeTreeObjects(repo: string, files: readonly FlatTreeEntry[]): Promise<string> {
  interface Dir {
    files: { path: string; mode: string; oid: string }[];
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: [], dirs: new Map() };
  for (const file of files) {
    const parts = file.path.split("/");
    const name = parts.pop() ?? file.path;
    let dir = root;
    for (const part of parts) {
      let next = dir.dirs.get(part);
      if (!next) {
        next = { files: [], dirs: new Map() };
        dir.dirs.set(part, next);
      }
      dir = next;
    }
    dir.files.push({ path: name, mode: file.mode, oid: file.object });
  }
  const write = async (dir: Dir): Promise<string> => {
    const tree: { path: string; mode: string; oid: string; type: "blob" | "tree" | "commit" }[] =
      dir.files.map((file) => ({ ...file, type: file.mode === SUBMODULE_MODE ? "commit" : "blob" }));
    for (const [name, child] of dir.dirs) {
      // Callers refuse such edits first (commit-proposal.ts); a tree with both would be corrupt.
      if (dir.files.some((file) => file.path === name))
        throw new HsearchError("internal", `'${name}' would be both a file and a directory in ${repo}`);
      tree.push({ path: name, mode: TREE_MODE, oid: await write(child), type: "tree" });
    }
    // isomorphic-git orders the entries as git does (a directory sorts as its name plus "/").
    return isomorphicGit.writeTree({ fs, dir: repo, tree });
  };
  return write(root);
}

/**
 * Writes a commit object with hsearch as author and committer at `seconds` (UTC); returns its id. The object's text
 * is git's commit format written out here, so that the message is stored byte for byte as `git commit-tree -F -`
 * stores it (isomorphic-git's own writeCommit ends every message with a newline).
 */
export function writeCommitObject(
  repo: string,
  commit: { tree: string; parents: string[]; message: string; seconds: number },
): Promise<string> {
  const person = `${HSEARCH_AUTHOR.name} <${HSEARCH_AUTHOR.email}> ${commit.seconds} +0000`;
  const headers = [
    `tree ${commit.tree}`,
    ...commit.parents.map((parent) => `parent ${parent}`),
    `author ${person}`,
    `committer ${person}`,
  ];
  const text = `${headers.join("\n")}\n\n${commit.message}`;
  return isomorphicGit.writeObject({
    fs,
    dir: repo,
    type: "commit",
    format: "content",
    object: new Uint8Array(Buffer.from(text, "utf8")),
  });
}

/** The object a ref (`refs/heads/…`, `refs/tags/…`) points at, or undefined when there is no such ref. */
export async function readRef(repo: string, ref: string): Promise<string | undefined> {
  try {
    return await isomorphicGit.resolveRef({ fs, dir: repo, ref });
  } catch (error) {
    if ((error as { code?: unknown }).code === "NotFoundError") return undefined;
    throw readFailure(repo, `ref ${ref}`, error);
  }
}

/** A value of the repository's own `.git/config` (e.g. `hsearch.run`), or undefined when unset. */
export async function readConfigValue(repo: string, path: string): Promise<string | undefined> {
  try {
    const value = await isomorphicGit.getConfig({ fs, dir: repo, path });
    return value === undefined || value === null ? undefined : String(value);
  } catch (error) {
    throw readFailure(repo, `config ${path}`, error);
  }
}

/** Sets a value of the repository's own `.git/config`, as `git config --local` does. */
export async function writeConfigValue(repo: string, path: string, value: string): Promise<void> {
  await isomorphicGit.setConfig({ fs, dir: repo, path, value });
}
