/** Reading commits back for review: unified diffs and commit metadata (rationale and trailers). */
import { type ParsedCommitMessage, parseCommitMessage } from "./commit-message";
import { git, gitLine } from "./git-exec";
import { resolveCommit } from "./tree";

export interface CommitInfo extends ParsedCommitMessage {
  commit: string;
  tree: string;
  parents: string[];
  message: string;
}

export async function commitInfo(repo: string, commit: string): Promise<CommitInfo> {
  const sha = await resolveCommit(repo, commit);
  const { stdout } = await git(repo, ["show", "-s", "--format=%H%x00%T%x00%P%x00%B", sha]);
  const [hash = "", tree = "", parents = "", ...message] = stdout.split("\0");
  const text = message.join("\0").replace(/\n+$/, "");
  return {
    commit: hash,
    tree,
    parents: parents.split(" ").filter((parent) => parent.length > 0),
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
    base = first ?? (await gitLine(repo, ["hash-object", "-t", "tree", "--stdin"], { input: "" }));
  }
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
