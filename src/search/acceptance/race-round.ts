import { createRng, HsearchError, settleAll } from "../../core";
import type { Task } from "../../domain";
import { harnessLimitsOf } from "../../harness";
import type { ObjectiveName } from "../../scoring";
import {
  type EpisodeScore,
  objectiveScore,
  pairedTaskDifferences,
  summarize,
  taskOutcomes,
} from "../../scoring";
import { loadCandidate, refreshCandidate, runJobs } from "../loop/candidate-rollouts";
import type { SearchDeps } from "../loop/search-deps";
import {
  crossesRung,
  halvingDrops,
  informativeWeights,
  type RaceSchedule,
  weightedOrder,
} from "../plan/race-plan";
import type { Admitted } from "./admit-proposal";
import type { RaceConfig } from "./race";
import { nextLook, type RaceLook, type RaceRule, raceLook } from "./race-halving";
import {
  type AcceptanceDecision,
  bestProposal,
  type EvaluatedProposal,
  type ProposalVerdict,
} from "./verdicts";

/**
 * A greedy round under `acceptance: {rule: race}` (docs/DESIGN.md §7): the round's proposals race the incumbent on the
 * search tasks in the round's order, a batch at a time and in lockstep (the incumbent is scored on a look's tasks
 * before the proposals' are compared with it); a proposal leaves the race once `raceLook` decides it, or when
 * successive halving drops it. Every look's tasks are a prefix of the same order (an informative order is stored as
 * the event `race_order` before the round's first rollout and read back on resume), so a resumed round reads its
 * stored rollouts back and takes the same decisions, and the rollouts a proposal gets do not depend on which finished
 * first.
 */

/** The run's task order: one seeded shuffle of the search split, the same every round (an incumbent's prefix is reused). */
export function raceOrder(seed: number, tasks: readonly Task[]): Task[] {
  return createRng(seed, "race-order").shuffle(tasks);
}

/**
 * The paired difference per task of `order` (the objective's outcome, mean over the repeats both arms scored), for the
 * first `n` tasks. A task that neither arm counts (a feasible task under SA-only) or that an infrastructure error
 * left unpaired differs by 0: the population stays the search split. Pure.
 */
export function pairedDifferences(
  order: readonly string[],
  n: number,
  incumbent: readonly EpisodeScore[],
  proposal: readonly EpisodeScore[],
  objective: ObjectiveName,
): number[] {
  const byTask = pairedTaskDifferences(incumbent, proposal, objective);
  return order.slice(0, n).map((task) => byTask.get(task) ?? 0);
}

/** The confidence sequence's parameters of a race config. */
export function raceParameters(rule: RaceConfig): RaceRule {
  return { alpha: rule.alpha, batch: rule.batch, minTasks: rule.min_tasks, margin: rule.margin };
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * Each search task's outcomes (mean over repeats, under the objective) for every candidate of an earlier round that
 * ran it: search-split rollouts only, stored before this round began. The incumbent's own rollouts may grow during a
 * round, which is why the order computed from them is stored rather than computed again on resume.
 */
function earlierOutcomes(deps: SearchDeps, round: number): Map<string, number[]> {
  const outcomes = new Map<string, number[]>();
  for (const candidate of deps.store.listCandidates()) {
    if (candidate.round >= round) continue;
    const scores = deps.store.listRollouts(candidate.commit, "search").map((r) => r.scores);
    for (const [task, values] of taskOutcomes(scores, deps.config.objective))
      outcomes.set(task, [...(outcomes.get(task) ?? []), mean(values)]);
  }
  return outcomes;
}

/** The round's order: the run's seeded one, or (`order: informative`) the stored or a new weighted draw. */
export function raceSchedule(deps: SearchDeps, round: number, rule: RaceConfig): RaceSchedule {
  const base = raceOrder(deps.config.seed, deps.tasks.search).map((task) => task.id);
  if (rule.order === "seeded") return { order: base, weights: null };
  const stored = deps.store.eventsOf("race_order").find((e) => e.data.round === round);
  if (stored) {
    const order = stored.data.order;
    const same = order.length === base.length && [...order].sort().join("\n") === [...base].sort().join("\n");
    if (!same)
      throw new HsearchError(
        "conflict",
        `round ${round}: the stored race order is not of this run's search tasks`,
      );
    return { order, weights: stored.data.weights };
  }
  const weights = informativeWeights(base, earlierOutcomes(deps, round), rule.informative_weight);
  const schedule = weightedOrder(
    deps.config.seed,
    round,
    base,
    new Map(base.map((id, i) => [id, weights[i] as number])),
  );
  deps.store.logEvent({
    kind: "race_order",
    data: { round, order: schedule.order, weights: schedule.weights },
  });
  return schedule;
}

interface Runner {
  proposal: Admitted;
  look: RaceLook | null;
}

/** Race a round's admitted proposals against the incumbent; every proposal is scored on the tasks it ran. */
export async function raceRound(
  deps: SearchDeps,
  repo: string,
  round: number,
  incumbent: string,
  admitted: readonly Admitted[],
  acceptance: RaceConfig,
): Promise<{ evaluated: EvaluatedProposal[]; decision: AcceptanceDecision }> {
  const { config, store } = deps;
  const rule = raceParameters(acceptance);
  const schedule = raceSchedule(deps, round, acceptance);
  const byId = new Map(deps.tasks.search.map((task) => [task.id, task]));
  const ids = schedule.order;
  const order = ids.map((id) => byId.get(id) as Task);
  const weights = schedule.weights ?? undefined;
  const population = order.length;
  const limits = harnessLimitsOf(config.limits);
  const incumbentHarness = await loadCandidate(repo, incumbent, limits);
  const harnesses = await settleAll(admitted.map((p) => loadCandidate(repo, p.commit, limits)));
  const runners: Runner[] = admitted.map((proposal) => ({ proposal, look: null }));
  const scoresOf = new Map<string, EpisodeScore[]>();
  let n = 0;
  let incumbentScores: EpisodeScore[] = [];
  while (runners.some((r) => r.look === null || r.look.verdict === "more")) {
    const before = n;
    n = nextLook(n, population, rule.batch);
    const tasks = order.slice(0, n);
    const live = runners.filter((r) => r.look === null || r.look.verdict === "more");
    const results = await settleAll([
      runJobs(
        deps,
        incumbentHarness,
        incumbent,
        "search",
        tasks,
        `round ${round} race: incumbent, ${n} tasks`,
      ),
      ...live.map((r) =>
        runJobs(
          deps,
          harnesses[admitted.indexOf(r.proposal)] as (typeof harnesses)[number],
          r.proposal.commit,
          "search",
          tasks,
          `round ${round} p${r.proposal.index} race, ${n} tasks`,
        ),
      ),
    ]);
    incumbentScores = results[0] as EpisodeScore[];
    for (const [k, r] of live.entries()) {
      const scores = results[k + 1] as EpisodeScore[];
      scoresOf.set(r.proposal.commit, scores);
      r.look = raceLook(
        pairedDifferences(ids, n, incumbentScores, scores, config.objective),
        population,
        rule,
        weights,
      );
    }
    const halving = acceptance.halving;
    if (halving && crossesRung(before, n, halving.first)) {
      const racing = live.filter((r) => r.look?.verdict === "more");
      const ranked = racing.map((r) => ({
        proposal: r.proposal.index,
        difference: (r.look as RaceLook).difference,
      }));
      const dropped = new Set(halvingDrops(ranked, halving.keep));
      for (const r of racing)
        if (dropped.has(r.proposal.index)) {
          const look = r.look as RaceLook;
          r.look = {
            ...look,
            verdict: "rejected",
            reason: `${look.reason}: dropped by halving (${racing.length - dropped.size} of ${racing.length} racing kept)`,
          };
        }
    }
  }
  // The incumbent's score covers every search task it has been scored on (this round may have extended it).
  refreshCandidate(
    deps,
    incumbent,
    store.listRollouts(incumbent, "search").map((r) => r.scores),
  );
  const evaluated: EvaluatedProposal[] = [];
  const verdicts: ProposalVerdict[] = [];
  for (const r of runners) {
    const scores = scoresOf.get(r.proposal.commit) ?? [];
    const look = r.look as RaceLook;
    const score = objectiveScore(scores, config.objective);
    const known = store.getCandidate(r.proposal.commit);
    store.setCandidateOutcome(r.proposal.commit, {
      state: known?.state === "rejected" ? "rejected" : "evaluated",
      ...(known?.verdict ? { verdict: known.verdict } : {}),
      rejected_reason: known?.rejected_reason ?? null,
      score,
      summary: summarize(scores),
    });
    deps.events?.candidate?.({
      round,
      proposal: r.proposal.index,
      commit: r.proposal.commit,
      score,
      state: "evaluated",
    });
    // The race ranks by the mean paired difference: the score to beat in `bestProposal`.
    evaluated.push({ commit: r.proposal.commit, proposal: r.proposal.index, score: look.difference, scores });
    verdicts.push({
      commit: r.proposal.commit,
      verdict: look.verdict === "accepted" ? "accepted" : "rejected",
      reason: `race: ${look.reason}`,
    });
  }
  const best = bestProposal(
    evaluated.filter((p) => verdicts.find((v) => v.commit === p.commit)?.verdict === "accepted"),
  );
  const decision: AcceptanceDecision = {
    accepted: best?.commit ?? null,
    verdicts: verdicts.map((v) =>
      v.verdict === "accepted" && v.commit !== best?.commit
        ? {
            ...v,
            verdict: "rejected",
            reason: `${v.reason}, but proposal ${best?.proposal} is further ahead`,
          }
        : v,
    ),
  };
  // Scores as the other rules report them: the objective on the tasks each proposal ran.
  return {
    evaluated: evaluated.map((p) => ({ ...p, score: store.getCandidate(p.commit)?.score ?? p.score })),
    decision,
  };
}
