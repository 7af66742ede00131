/**
 * Branches and tags of the harness repository: `incumbent` follows accepted candidates, tag `selected` marks the
 * harness chosen at the end, `round-<r>/p<k>` hold the proposals.
 */
import { HsearchError } from "../core";
import { git } from "./git-exec";
import { readRef } from "./objects";
import { resolveCommit } from "./tree";

export const INCUMBENT_BRANCH = "incumbent";
export const SELECTED_TAG = "selected";

/** The commit a full ref name points at, or undefined when there is no such ref. */
async function refCommit(repo: string, ref: string): Promise<string | undefined> {
  // Read in-process (a search asks every round); a ref at something other than a commit (an annotated tag a user
  // made) is peeled by git itself.
  const object = await readRef(repo, ref);
  if (object === undefined) return undefined;
  try {
    return await resolveCommit(repo, object);
  } catch {
    const result = await git(repo, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
      allowExitCodes: [1],
    });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }
}

/** The commit a branch points at, or undefined when there is no such branch. */
export function branchCommit(repo: string, branch: string): Promise<string | undefined> {
  return refCommit(repo, `refs/heads/${branch}`);
}

/** Moves `incumbent` to `commit` (idempotent). */
export async function moveIncumbent(repo: string, commit: string): Promise<string> {
  const sha = await resolveCommit(repo, commit);
  await git(repo, [
    "update-ref",
    "-m",
    `hsearch: incumbent -> ${sha}`,
    `refs/heads/${INCUMBENT_BRANCH}`,
    sha,
  ]);
  return sha;
}

/**
 * Tags the selected harness. Tagging the same commit again is fine (resume); the tag never moves to another commit,
 * since a run selects exactly one harness.
 */
export async function tagSelected(repo: string, commit: string): Promise<string> {
  const sha = await resolveCommit(repo, commit);
  const current = await refCommit(repo, `refs/tags/${SELECTED_TAG}`);
  if (current === sha) return sha;
  if (current !== undefined) {
    throw new HsearchError(
      "conflict",
      `tag ${SELECTED_TAG} already marks ${current.slice(0, 12)}, not ${sha.slice(0, 12)}`,
      { file: repo, field: SELECTED_TAG },
    );
  }
  await git(repo, ["update-ref", `refs/tags/${SELECTED_TAG}`, sha, ""]);
  return sha;
}

export interface ProposalBranch {
  branch: string;
  round: number;
  proposal: number;
  commit: string;
}

const PROPOSAL_BRANCH = /^round-(\d+)\/p(\d+)$/;

/** Every `round-<r>/p<k>` branch, ordered by round then proposal. */
export async function listProposalBranches(repo: string): Promise<ProposalBranch[]> {
  const { stdout } = await git(repo, [
    "for-each-ref",
    "--format=%(refname:strip=2) %(objectname)",
    "refs/heads/",
  ]);
  const branches: ProposalBranch[] = [];
  for (const line of stdout.split("\n")) {
    const [branch = "", commit = ""] = line.split(" ");
    const match = PROPOSAL_BRANCH.exec(branch);
    if (match) branches.push({ branch, round: Number(match[1]), proposal: Number(match[2]), commit });
  }
  return branches.sort((a, b) => a.round - b.round || a.proposal - b.proposal);
}
