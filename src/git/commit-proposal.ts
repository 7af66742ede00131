/**
 * One proposal becomes one commit on `round-<r>/p<k>` whose parent is the incumbent (docs/DESIGN.md §7). Every edited path is
 * checked before anything is written: it must be a plain relative path (see harness-path.ts) and must not pass
 * through a symlink, neither in the parent's tree nor in the repository's working directory.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { badInput, HsearchError } from "../core";
import { composeCommitMessage } from "./commit-message";
import { assertHarnessPath, parentPrefixes } from "./harness-path";
import { readRepoSettings } from "./repo-settings";
import { listTree, resolveCommit, type TreeEntry } from "./tree";
import { createBranchAt, type IndexEdit, writeCommit } from "./write-commit";

export interface ProposalCommit {
  /** The incumbent the proposal edits (any commit-ish). */
  parent: string;
  round: number;
  /** Index of the proposal within its round. */
  proposal: number;
  /** New file contents by harness-relative path; null deletes the file. */
  files: Record<string, string | null>;
  rationale: string;
  trailers: { run: string; proposer: string; extra?: Record<string, string> };
}

export interface CommittedProposal {
  commit: string;
  branch: string;
  parent: string;
}

export function proposalBranch(round: number, proposal: number): string {
  return `round-${round}/p${proposal}`;
}

function assertIndex(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0)
    throw badInput(`${name} must be a non-negative integer`, { field: name });
}

async function isSymlinkOnDisk(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === "ENOENT" ||
      (error as NodeJS.ErrnoException).code === "ENOTDIR"
    ) {
      return false;
    }
    throw error;
  }
}

/** Refuses a path that the parent tree or the working directory would route somewhere it should not go. */
async function assertEditable(repo: string, path: string, deleting: boolean, tree: Map<string, TreeEntry>) {
  const refuse = (why: string) => badInput(`harness path '${path}' refused: ${why}`, { field: path });
  for (const prefix of parentPrefixes(path)) {
    const entry = tree.get(prefix);
    if (entry?.kind === "symlink") throw refuse(`'${prefix}' is a symlink`);
    if (entry !== undefined) throw refuse(`'${prefix}' is a ${entry.kind}, not a directory`);
    if (await isSymlinkOnDisk(join(repo, prefix)))
      throw refuse(`'${prefix}' is a symlink in the working directory`);
  }
  if (await isSymlinkOnDisk(join(repo, path))) throw refuse("it is a symlink in the working directory");
  const entry = tree.get(path);
  if (entry !== undefined && entry.kind !== "file" && entry.kind !== "executable") {
    throw refuse(`it is a ${entry.kind}`);
  }
  if (entry === undefined) {
    const directory = `${path}/`;
    for (const other of tree.keys()) if (other.startsWith(directory)) throw refuse("it is a directory");
    if (deleting) throw refuse("cannot delete a file that does not exist");
  }
}

/**
 * Commits a proposal and creates its branch. Idempotent: the same proposal (parent, files, rationale, trailers)
 * gives the same sha, and a branch already at that sha is accepted. bad_input names the first refused path.
 */
export async function commitProposal(repo: string, proposal: ProposalCommit): Promise<CommittedProposal> {
  assertIndex("round", proposal.round);
  assertIndex("proposal", proposal.proposal);
  const paths = Object.keys(proposal.files).sort();
  for (const path of paths) assertHarnessPath(path);
  for (const path of paths) {
    const clash = parentPrefixes(path).find((prefix) => prefix in proposal.files);
    if (clash !== undefined)
      throw badInput(`harness path '${path}' refused: '${clash}' is also edited as a file`, { field: path });
  }
  const message = composeCommitMessage(proposal.rationale, {
    run: proposal.trailers.run,
    round: proposal.round,
    proposal: proposal.proposal,
    proposer: proposal.trailers.proposer,
    extra: proposal.trailers.extra,
  });
  const parent = await resolveCommit(repo, proposal.parent);
  const tree = new Map((await listTree(repo, parent)).map((entry) => [entry.path, entry]));
  const edits: IndexEdit[] = [];
  for (const path of paths) {
    const content = proposal.files[path] ?? null;
    await assertEditable(repo, path, content === null, tree);
    edits.push({ path, content, executable: tree.get(path)?.kind === "executable" });
  }
  const { commitDate, run } = await readRepoSettings(repo);
  if (run !== proposal.trailers.run) {
    throw new HsearchError("conflict", `${repo} belongs to run ${run}, not ${proposal.trailers.run}`, {
      file: repo,
    });
  }
  const commit = await writeCommit(repo, { parent, edits, message, date: commitDate });
  const branch = proposalBranch(proposal.round, proposal.proposal);
  await createBranchAt(repo, branch, commit);
  return { commit, branch, parent };
}
