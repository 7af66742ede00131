import { HsearchError } from "../../core";
import { commitProposal, readTree, treeHash } from "../../git";
import { harnessLimitsOf, parseHarness } from "../../harness";
import { evaluateCandidate } from "../loop/candidate-rollouts";
import type { SearchDeps } from "../loop/search-deps";
import { proposerLabel } from "../proposers";
import { applyProposal, assertProposalPaths, type Proposal } from "../proposers/proposal";
import type { EvaluatedProposal } from "./verdicts";

/** Why a proposal is not evaluated: refused before it became a commit, or a commit that is a duplicate or invalid. */
type Failure =
  | { state: "refused"; reason: string }
  | { state: "skipped_duplicate"; commit: string; duplicate_of: string; reason: string }
  | { state: "invalid"; commit: string; reason: string };

/**
 * An acceptance rule's check before a proposal's full evaluation (src/search/acceptance/rule.ts): true when it
 * rejected the proposal there, having stored why.
 */
export type Screen = (
  deps: SearchDeps,
  repo: string,
  parent: string,
  proposal: Admitted,
  round: number,
) => Promise<boolean>;

/** A proposal committed and validated, waiting for its evaluation. */
export interface Admitted {
  commit: string;
  index: number;
}

/** Commit and validate one proposal; null when it is not evaluated (invalid, duplicate, refused). */
export async function admitProposal(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
  index: number,
  proposal: Proposal,
): Promise<Admitted | null> {
  const { store } = deps;
  const proposer = proposal.proposer ?? proposerLabel(deps);
  const fail = (failure: Failure): null => {
    const { reason } = failure;
    if (failure.state === "refused")
      store.recordProposalFailure({
        round,
        proposal: index,
        proposer,
        rationale: proposal.rationale,
        reason,
      });
    else
      store.setCandidateOutcome(failure.commit, {
        state: failure.state,
        ...(failure.state === "skipped_duplicate" ? { duplicate_of: failure.duplicate_of } : {}),
        rejected_reason: reason,
      });
    const commit = failure.state === "refused" ? "" : failure.commit;
    deps.events?.candidate?.({ round, proposal: index, commit, score: null, state: failure.state, reason });
    return null;
  };
  try {
    assertProposalPaths(proposal.files);
  } catch (error) {
    return fail({ state: "refused", reason: (error as Error).message });
  }
  let committed: { commit: string };
  try {
    committed = await commitProposal(repo, {
      parent: incumbent,
      round,
      proposal: index,
      files: proposal.files,
      rationale: proposal.rationale,
      trailers: { run: deps.runId, proposer, extra: { "Hsearch-Operator": proposal.operator } },
    });
  } catch (error) {
    if (!(error instanceof HsearchError) || error.code !== "bad_input") throw error;
    return fail({ state: "refused", reason: error.describe() });
  }
  const commit = committed.commit;
  const tree = await treeHash(repo, commit);
  const duplicateOf = store.listCandidates().find((c) => c.tree_hash === tree && c.commit !== commit);
  store.addCandidate({
    commit,
    round,
    proposal: index,
    parent: incumbent,
    branch: `round-${round}/p${index}`,
    proposer,
    rationale: proposal.rationale,
    tree_hash: tree,
  });
  // A resumed round meets its earlier decisions again: not evaluated then, not evaluated now.
  const known = store.getCandidate(commit);
  if (known?.state === "invalid" || known?.state === "skipped_duplicate" || known?.verdict === "screened_out")
    return null;
  if (duplicateOf)
    return fail({
      state: "skipped_duplicate",
      commit,
      duplicate_of: duplicateOf.commit,
      reason: `same harness as ${duplicateOf.commit.slice(0, 12)} (round ${duplicateOf.round})`,
    });
  try {
    const files = applyProposal(await readTree(repo, incumbent), proposal);
    parseHarness(files, `round-${round}/p${index}`, harnessLimitsOf(deps.config.limits));
  } catch (error) {
    if (!(error instanceof HsearchError)) throw error;
    return fail({ state: "invalid", commit, reason: error.describe() });
  }
  return { commit, index };
}

/** The screen (if any) and the search-split evaluation of an admitted proposal; null when screened out. */
export async function evaluateProposal(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  round: number,
  { commit, index }: Admitted,
  screen?: Screen,
): Promise<EvaluatedProposal | null> {
  const { store } = deps;
  if (screen && (await screen(deps, repo, incumbent, { commit, index }, round))) return null;
  const score = await evaluateCandidate(deps, repo, commit, round, index);
  deps.events?.candidate?.({ round, proposal: index, commit, score, state: "evaluated" });
  const scores = store.listRollouts(commit, "search").map((r) => r.scores);
  return { commit, proposal: index, score, scores };
}
