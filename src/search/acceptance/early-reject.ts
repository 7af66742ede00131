import { type EpisodeScore, type ObjectiveName, taskOutcomes } from "../../scoring";

/**
 * Early rejection under `greater` (`acceptance: {rule: greater, early_reject: true}`, docs/DESIGN.md §7), pure. The
 * incumbent is scored on every search task, so each task's most a proposal can gain there is known: 1 − the
 * incumbent's outcome (its mean over repeats under the objective; 0 on a task the objective does not count). After
 * some tasks, the proposal's total paired difference can be at most the bound B = Σ seen d + Σ unseen (1 − v); once
 * B ≤ 0 it cannot beat the incumbent on the pairs both are scored on, which is exactly `greater`'s rejection, so the
 * decision is the full evaluation's, only cheaper. Proposals that may still win run on every task, so the round's
 * winner, its score and every tie are `greater`'s too.
 */

/** Sums of fractions of at most 20 repeats differ from 0 by far more than this when they are not 0. */
const EPSILON = 1e-12;

export interface IncumbentOutcome {
  mean: number;
  min: number;
  max: number;
}

/**
 * Per task of the search split: the incumbent's outcome (mean, lowest and highest over repeats, from the objective's
 * episode outcomes), null for a task with no episode the objective counts (uncounted, or infrastructure errors only).
 */
export function incumbentOutcomes(
  scores: readonly EpisodeScore[],
  objective: ObjectiveName,
): Map<string, IncumbentOutcome | null> {
  const out = new Map<string, IncumbentOutcome | null>(scores.map((score) => [score.task_id, null]));
  for (const [task, values] of taskOutcomes(scores, objective))
    out.set(task, {
      mean: values.reduce((sum, v) => sum + v, 0) / values.length,
      min: Math.min(1, ...values),
      max: Math.max(0, ...values),
    });
  return out;
}

/**
 * The most a proposal can gain on a task: 1 − the lowest outcome the incumbent had on it (a pair left out by an
 * infrastructure error differs by 0, so the bound holds for every subset of pairs). A task the incumbent has no
 * scored episode on is counted as all to gain when the objective counts it (`counted`), else as nothing.
 */
export function gainLeft(outcome: IncumbentOutcome | null | undefined, counted: boolean): number {
  if (outcome) return 1 - outcome.min;
  return counted ? 1 : 0;
}

/**
 * The most running a task can lower the bound: its gain left plus the most the proposal can lose there (the
 * incumbent's highest outcome); 1 with one repeat.
 */
export function largestDrop(outcome: IncumbentOutcome | null | undefined, counted: boolean): number {
  return gainLeft(outcome, counted) + (outcome?.max ?? 0);
}

/**
 * The order a proposal runs the search tasks in: those the incumbent fails most first (only they can gain, and each
 * costs the bound a whole point whatever the proposal does there), ties in the run's seeded order; the tasks the
 * objective does not count last (a rejected proposal never needs them). A prefix of this order is also the part of
 * the incumbent with its lowest outcomes, so a rejected proposal's score on its prefix never exceeds the incumbent's
 * (the operators proposer's crossover donors stay the full evaluation's).
 */
export function rejectionOrder(
  seeded: readonly string[],
  outcomes: ReadonlyMap<string, { mean: number } | null>,
  counted: (task: string) => boolean,
): string[] {
  const rank = (task: string) => {
    if (!counted(task)) return 2;
    const outcome = outcomes.get(task);
    return outcome ? outcome.mean : -1;
  };
  return seeded
    .map((task, index) => ({ task, index, rank: rank(task) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.task);
}

export type RejectionStep =
  | { kind: "rejected"; seen: number; difference: number; left: number }
  | { kind: "run"; tasks: number }
  | { kind: "run-all" };

/**
 * The total a proposal must not exceed to be rejected: 0 against the incumbent (`greater` needs a strict gain, so a
 * tie rejects); a leader's total against the round's leader (`early_reject: leader`), where a tie rejects only the
 * proposal with the higher number (`bestProposal` takes the lower on ties).
 */
export interface RejectionBar {
  total: number;
  tieRejects: boolean;
}

export const INCUMBENT_BAR: RejectionBar = { total: 0, tieRejects: true };

/**
 * What to do after the first `seen` tasks of the order (`differences[i]`: the paired difference on task i, for the
 * seen ones; `gains[i]` and `drops[i]`: its gain left and largest drop): reject (B is at the bar); run all (even the
 * largest drops of every task left cannot bring B to the bar, so nothing left can reject it); or run the next tasks,
 * as few as can bring B to the bar at their largest drops — a proposal later rejected never runs a task it did not
 * need.
 */
export function rejectionStep(
  differences: readonly number[],
  gains: readonly number[],
  drops: readonly number[],
  seen: number,
  bar: RejectionBar = INCUMBENT_BAR,
): RejectionStep {
  const difference = differences.slice(0, seen).reduce((sum, d) => sum + d, 0);
  const left = gains.slice(seen).reduce((sum, g) => sum + g, 0);
  // How far B is above what rejects: B ≤ bar on a rejecting tie, else B < bar (by more than rounding).
  const excess = difference + left - bar.total + (bar.tieRejects ? 0 : EPSILON * 2);
  if (excess <= EPSILON) return { kind: "rejected", seen, difference, left };
  let reach = 0;
  for (let k = seen; k < drops.length; k++) {
    reach += drops[k] as number;
    if (reach >= excess - EPSILON) return { kind: "run", tasks: k + 1 - seen };
  }
  return { kind: "run-all" };
}

/** The proposal to run to the end first among those still able to win: the highest total so far, then the lowest number. */
export function nextLeader<T extends { index: number; total: number }>(
  contenders: readonly T[],
): T | undefined {
  return [...contenders].sort((a, b) => b.total - a.total || a.index - b.index)[0];
}
