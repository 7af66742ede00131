import { HsearchError } from "../core/errors";
import { createRng } from "../core/rng";
import { commitProposal, readTree, treeHash } from "../git";
import { harnessLimitsOf, parseHarness } from "../harness/load";
import { definedObjectiveScore } from "../scoring";
import { type EvaluatedProposal, screenStep } from "./acceptance";
import { evaluateCandidate, loadCandidate, runJobs } from "./candidate-rollouts";
import { commonPairs } from "./infra-errors";
import { applyProposal, assertProposalPaths, type Proposal } from "./proposal";
import type { SearchDeps } from "./search-deps";

/** Why a proposal is not evaluated: refused before it became a commit, or a commit that is a duplicate or invalid. */
type Failure =
  | { state: "refused"; reason: string }
  | { state: "skipped_duplicate"; commit: string; duplicate_of: string; reason: string }
  | { state: "invalid"; commit: string; reason: string };

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
  const proposer =
    proposal.proposer ?? deps.pluginProposer?.name ?? (deps.metaModel ? deps.metaModel.id : "operators");
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
): Promise<EvaluatedProposal | null> {
  const { store } = deps;
  if (await screenedOut(deps, repo, incumbent, commit, round, index)) return null;
  const score = await evaluateCandidate(deps, repo, commit, round, index);
  deps.events?.candidate?.({ round, proposal: index, commit, score, state: "evaluated" });
  const scores = store.listRollouts(commit, "search").map((r) => r.scores);
  return { commit, proposal: index, score, scores };
}

/** The paired rule's optional screen: evaluate on a seeded subset first, and reject early if far behind. */
async function screenedOut(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  commit: string,
  round: number,
  index: number,
): Promise<boolean> {
  const rule = deps.config.acceptance;
  if (rule.rule !== "paired" || !rule.screen) return false;
  const known = deps.store.getCandidate(commit);
  if (known?.state === "evaluated") return false;
  const count = Math.max(1, Math.round(deps.tasks.search.length * rule.screen.fraction));
  const subset = createRng(deps.config.seed, "screen", round).shuffle(deps.tasks.search).slice(0, count);
  const ids = new Set(subset.map((task) => task.id));
  const proposalScores = await runJobs(
    deps,
    await loadCandidate(repo, commit, harnessLimitsOf(deps.config.limits)),
    commit,
    "search",
    subset,
    `round ${round} p${index} screen`,
  );
  const incumbentScores = deps.store
    .listRollouts(incumbent, "search")
    .map((r) => r.scores)
    .filter((score) => ids.has(score.task_id) && score.repeat < deps.config.repeats);
  const objective = deps.config.objective;
  // Both arms on the (task, repeat) pairs scored for both: an infrastructure error in either leaves the pair out.
  const [theirPairs, myPairs] = commonPairs(incumbentScores, proposalScores);
  const mine = definedObjectiveScore(myPairs, objective);
  const theirs = definedObjectiveScore(theirPairs, objective);
  if (mine === null || theirs === null || screenStep(mine, theirs, rule.screen.reject_below) === "continue")
    return false;
  const reason = `screened out: ${mine.toFixed(4)} on ${count} tasks, incumbent ${theirs.toFixed(4)} (margin ${rule.screen.reject_below})`;
  deps.store.setCandidateOutcome(commit, {
    state: "rejected",
    verdict: "screened_out",
    score: null,
    rejected_reason: reason,
  });
  deps.events?.candidate?.({ round, proposal: index, commit, score: null, state: "rejected", reason });
  return true;
}
