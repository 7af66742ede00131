/** Reading commits back for review: unified diffs and commit metadata (rationale and trailers). */
import { type ParsedCommitMessage, parseCommitMessage } from "./commit-message";
import { git } from "./git-exec";
import { memoizedByObject } from "./object-memo";
import { writeTreeObjects } from "./objects";
import { commitObject, resolveCommit } from "./tree";

export interface CommitInfo extends ParsedCommitMessage {
  commit: string;
  tree: string;
  parents: string[];
  message: string;
}

export async function commitInfo(repo: string, commit: string): Promise<CommitInfo> {
  const sha = await resolveCommit(repo, commit);
  const info = await memoizedByObject(repo, ["show", sha], () => showCommit(repo, sha));
  return structuredClone(info);
}

async function showCommit(repo: string, sha: string): Promise<CommitInfo> {
  const object = await commitObject(repo, sha);
  // What `git show --format=%B` prints, without its trailing newlines.
  const text = object.message.replace(/\n+$/, "");
  return {
    commit: sha,
    tree: object.tree,
    parents: [...object.parents],
    message: text,
    ...parseCommitMessage(text),
  };
}

/**
 * The unified diff from `parent` (default: the commit's first parent; the empty tree for a root commit) to
 * `commit`. Plain git output: no colour, no external diff drivers, renames detected.
 */
export async function diff(repo: string, commit: string, parent?: string): Promise<string> {
  const sha = await resolveCommit(repo, commit);
  let base: string;
  if (parent !== undefined) base = await resolveCommit(repo, parent);
  else {
    const [first] = (await commitInfo(repo, sha)).parents;
    base = first ?? (await memoizedByObject(repo, ["empty-tree"], () => writeTreeObjects(repo, [])));
  }
  return memoizedByObject(repo, ["diff", base, sha], () => diffObjects(repo, base, sha));
}

async function diffObjects(repo: string, base: string, sha: string): Promise<string> {
  const { stdout } = await git(repo, [
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "-M",
    base,
    sha,
    "--",
  ]);
  return stdout;
}
