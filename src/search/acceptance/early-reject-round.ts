import { settleAll } from "../../core";
import { type Harness, harnessLimitsOf } from "../../harness";
import { type EpisodeScore, objectiveOf, summarize } from "../../scoring";
import { loadCandidate, runJobs } from "../loop/candidate-rollouts";
import type { SearchDeps } from "../loop/search-deps";
import { type Admitted, evaluateProposal } from "./admit-proposal";
import {
  gainLeft,
  INCUMBENT_BAR,
  incumbentOutcomes,
  largestDrop,
  nextLeader,
  type RejectionBar,
  type RejectionStep,
  rejectionOrder,
  rejectionStep,
} from "./early-reject";
import { pairedDifferences, raceOrder } from "./race-round";
import type { EvaluatedProposal, ProposalVerdict } from "./verdicts";

/**
 * A greedy round under `acceptance: {rule: greater, early_reject: true}` (docs/DESIGN.md §7): each proposal runs the
 * search tasks in the rejection order (src/search/acceptance/early-reject.ts) until it can no longer beat the incumbent, or on
 * all of them when it still can; the latter go to `greater` as usual. Under `early_reject: leader` a proposal still
 * ahead after the tasks it could gain on waits; the likeliest winner runs to the end, and the others go on against
 * its total, those still able to beat it running to the end in turn. Every step is a prefix of one order computed
 * from the incumbent's stored rollouts, and each proposal's steps depend only on its own outcomes, so the round is
 * the same at any concurrency and a resumed round reads its stored rollouts back into the same steps. `leaderMode`:
 * `early_reject: leader` (the greater rule's module, src/search/acceptance/greater.ts, says which).
 */
export async function earlyRejectRound(
  deps: SearchDeps,
  repo: string,
  round: number,
  incumbent: string,
  admitted: ReadonlyArray<Admitted & { parent: string }>,
  leaderMode: boolean,
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
  const differencesOf = (scores: readonly EpisodeScore[], seen: number) =>
    pairedDifferences(ids, seen, incumbentScores, scores, config.objective);

  /**
   * Run a proposal on prefixes of the order until the bar rejects it or nothing left can; or, given `pauseAt`, until
   * it has run that many tasks (then it stays undecided: `run-all`).
   */
  const advance = async (
    runner: Runner,
    bar: RejectionBar,
    pauseAt = order.length,
  ): Promise<RejectionStep> => {
    let step = rejectionStep(differencesOf(runner.scores, runner.seen), gains, drops, runner.seen, bar);
    while (step.kind === "run") {
      if (runner.seen >= pauseAt) return { kind: "run-all" };
      runner.seen = Math.min(runner.seen + step.tasks, pauseAt);
      runner.scores = await runJobs(
        deps,
        runner.harness,
        runner.proposal.commit,
        "search",
        order.slice(0, runner.seen),
        `round ${round} p${runner.proposal.index}, ${runner.seen} of ${order.length} tasks`,
      );
      step = rejectionStep(differencesOf(runner.scores, runner.seen), gains, drops, runner.seen, bar);
    }
    return step;
  };
  const runners: Runner[] = await settleAll(
    admitted.map(async (proposal) => ({
      proposal,
      harness: await loadCandidate(repo, proposal.commit, limits),
      seen: 0,
      scores: [],
    })),
  );
  const rejected: ProposalVerdict[] = [];
  const reject = (runner: Runner, step: Extract<RejectionStep, { kind: "rejected" }>, against?: Best) =>
    rejected.push(rejectedEarly(deps, round, runner, step, order.length, against));
  const evaluated: EvaluatedProposal[] = [];
  const complete = async (runner: Runner) => {
    const result = await evaluateProposal(deps, repo, runner.proposal.parent, round, runner.proposal);
    if (result) evaluated.push(result);
    return result;
  };

  // Against the incumbent, all at once. Against the leader as well: a proposal still ahead once it has run every task
  // it could gain on waits there, where only losses are left, for the leader's total to raise the bar.
  const gainful = gains.filter((gain) => gain > 0).length;
  const first = await settleAll(
    runners.map((runner) => advance(runner, INCUMBENT_BAR, leaderMode ? gainful : order.length)),
  );
  let contenders = runners.filter((runner, i) => {
    const step = first[i] as RejectionStep;
    if (step.kind === "rejected") reject(runner, step);
    return step.kind === "run-all";
  });
  if (!leaderMode) {
    await settleAll(contenders.map(complete));
    return { evaluated: inProposalOrder(evaluated), rejected };
  }
  // Against the round's leader: run the likeliest winner to the end, then stop those that cannot beat it. Totals are
  // greater's comparison only when every arm is scored on the same pairs, so an infrastructure error anywhere runs
  // the rest to the end instead.
  const clean = (scores: readonly EpisodeScore[]) => scores.every((score) => score.kind !== "infra_error");
  let best: Best | null = null;
  while (contenders.length > 0) {
    const totals = contenders.map((runner) => ({
      runner,
      index: runner.proposal.index,
      total: sum(differencesOf(runner.scores, runner.seen)),
    }));
    const leader = nextLeader(totals)?.runner as Runner;
    const result = await complete(leader);
    const scores = result?.scores ?? [];
    const total = sum(differencesOf(scores, order.length));
    if (
      result &&
      (best === null || total > best.total || (total === best.total && leader.proposal.index < best.index))
    )
      best = { index: leader.proposal.index, total, exact: clean(scores) && clean(incumbentScores) };
    contenders = contenders.filter((runner) => runner !== leader);
    const against = best;
    if (against === null || !against.exact) continue;
    const steps = await settleAll(
      contenders.map((runner) =>
        clean(runner.scores)
          ? advance(runner, { total: against.total, tieRejects: runner.proposal.index > against.index })
          : Promise.resolve<RejectionStep>({ kind: "run-all" }),
      ),
    );
    contenders = contenders.filter((runner, i) => {
      const step = steps[i] as RejectionStep;
      if (step.kind === "rejected") reject(runner, step, against);
      return step.kind === "run-all";
    });
  }
  return { evaluated: inProposalOrder(evaluated), rejected };
}

interface Runner {
  proposal: Admitted & { parent: string };
  harness: Harness;
  seen: number;
  scores: EpisodeScore[];
}

/** The best proposal run to the end so far: its number and total difference against the incumbent. */
interface Best {
  index: number;
  total: number;
  exact: boolean;
}

const sum = (values: readonly number[]) => values.reduce((s, v) => s + v, 0);

function inProposalOrder(evaluated: EvaluatedProposal[]): EvaluatedProposal[] {
  return [...evaluated].sort((a, b) => a.proposal - b.proposal);
}

/**
 * Store an early-rejected proposal: its summary of the tasks it ran, and no score, since those are the incumbent's
 * failures first and not a sample of the split (a score there would read as far below the incumbent for a proposal
 * that may change nothing). The verdict says how far it got.
 */
function rejectedEarly(
  deps: SearchDeps,
  round: number,
  runner: Runner,
  step: Extract<RejectionStep, { kind: "rejected" }>,
  population: number,
  against?: Best,
): ProposalVerdict {
  const { proposal, scores } = runner;
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
  const where = `${signed(step.difference)} on its ${step.seen} of ${population} search tasks, at most +${fmt(step.left)} on the ${population - step.seen} left`;
  return {
    commit: proposal.commit,
    verdict: "rejected",
    reason: against
      ? `cannot beat proposal ${against.index} (${signed(against.total)} on all ${population} tasks against the incumbent): ${where}`
      : `cannot beat the incumbent: ${where}`,
  };
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}
