import { settleAll } from "../core/pool";
import { harnessLimitsOf } from "../harness/load";
import { type EpisodeScore, summarize } from "../scoring";
import { objectiveOf } from "../scoring/objective";
import type { EvaluatedProposal, ProposalVerdict } from "./acceptance";
import { type Admitted, evaluateProposal } from "./admit-proposal";
import { loadCandidate, runJobs } from "./candidate-rollouts";
import {
  gainLeft,
  incumbentOutcomes,
  largestDrop,
  type RejectionStep,
  rejectionOrder,
  rejectionStep,
} from "./early-reject";
import { pairedDifferences, raceOrder } from "./race-round";
import type { SearchDeps } from "./search-deps";

/**
 * A greedy round under `acceptance: {rule: greater, early_reject: true}` (docs/DESIGN.md §7): each proposal runs the
 * search tasks in the rejection order (src/search/early-reject.ts) until it can no longer beat the incumbent, or on
 * all of them when it still can; the latter go to `greater` as usual. Every step is a prefix of one order computed
 * from the incumbent's stored rollouts, and each proposal's steps depend only on its own outcomes, so the round is
 * the same at any concurrency and a resumed round reads its stored rollouts back into the same steps.
 */
export async function earlyRejectRound(
  deps: SearchDeps,
  repo: string,
  round: number,
  incumbent: string,
  admitted: ReadonlyArray<Admitted & { parent: string }>,
): Promise<{ evaluated: EvaluatedProposal[]; rejected: ProposalVerdict[] }> {
  const { config, store } = deps;
  const objective = objectiveOf(config.objective);
  const incumbentScores = store.listRollouts(incumbent, "search").map((r) => r.scores);
  const outcomes = incumbentOutcomes(incumbentScores, config.objective);
  // A task counts when the objective counts its kind (SA-only: blocked tasks only).
  const countedIds = new Set(
    deps.tasks.search.filter((task) => objective.countedKinds.includes(task.kind)).map((task) => task.id),
  );
  const counted = (id: string) => countedIds.has(id);
  const ids = rejectionOrder(
    raceOrder(config.seed, deps.tasks.search).map((task) => task.id),
    outcomes,
    counted,
  );
  const byId = new Map(deps.tasks.search.map((task) => [task.id, task]));
  const order = ids.map((id) => byId.get(id) as (typeof deps.tasks.search)[number]);
  const gains = ids.map((id) => gainLeft(outcomes.get(id), counted(id)));
  const drops = ids.map((id) => largestDrop(outcomes.get(id), counted(id)));
  const limits = harnessLimitsOf(config.limits);

  const results = await settleAll(
    admitted.map(async (proposal) => {
      const harness = await loadCandidate(repo, proposal.commit, limits);
      let seen = 0;
      let scores: EpisodeScore[] = [];
      let step: RejectionStep = rejectionStep([], gains, drops, 0);
      while (step.kind === "run") {
        seen += step.tasks;
        scores = await runJobs(
          deps,
          harness,
          proposal.commit,
          "search",
          order.slice(0, seen),
          `round ${round} p${proposal.index}, ${seen} of ${order.length} tasks`,
        );
        step = rejectionStep(
          pairedDifferences(ids, seen, incumbentScores, scores, config.objective),
          gains,
          drops,
          seen,
        );
      }
      if (step.kind === "run-all")
        return { evaluated: await evaluateProposal(deps, repo, proposal.parent, round, proposal) };
      return { verdict: rejectedEarly(deps, round, proposal, scores, step, order.length) };
    }),
  );
  const evaluated: EvaluatedProposal[] = [];
  const rejected: ProposalVerdict[] = [];
  for (const result of results) {
    if (result.verdict) rejected.push(result.verdict);
    if (result.evaluated) evaluated.push(result.evaluated);
  }
  return { evaluated, rejected };
}

/**
 * Store an early-rejected proposal: its summary of the tasks it ran, and no score, since those are the incumbent's
 * failures first and not a sample of the split (a score there would read as far below the incumbent for a proposal
 * that may change nothing). The verdict says how far it got.
 */
function rejectedEarly(
  deps: SearchDeps,
  round: number,
  proposal: Admitted,
  scores: readonly EpisodeScore[],
  step: Extract<RejectionStep, { kind: "rejected" }>,
  population: number,
): ProposalVerdict {
  deps.store.setCandidateOutcome(proposal.commit, {
    state: "evaluated",
    score: null,
    summary: scores.length > 0 ? summarize(scores) : null,
  });
  deps.events?.candidate?.({
    round,
    proposal: proposal.index,
    commit: proposal.commit,
    score: null,
    state: "evaluated",
  });
  const signed = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${fmt(Math.abs(x))}`;
  return {
    commit: proposal.commit,
    verdict: "rejected",
    reason: `cannot beat the incumbent: ${signed(step.difference)} on its ${step.seen} of ${population} search tasks, at most +${fmt(step.left)} on the ${population - step.seen} left`,
  };
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}
