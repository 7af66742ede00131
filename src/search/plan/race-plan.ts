import { createRng } from "../../core";

/**
 * What a race round does before and between its looks, pure (docs/DESIGN.md §7): the order its proposals draw the
 * search tasks in, and which proposals successive halving drops. race-round.ts performs what these decide.
 *
 * Informative order (`order: informative`): a task on which earlier candidates' outcomes differed is drawn with
 * `informative_weight` times the chance of one on which they all agreed (or that fewer than two have run), so a
 * proposal meets first the tasks most likely to tell it apart from its incumbent (a task every candidate solves or
 * every candidate fails says little about a difference). The weights come only from search-split outcomes stored for
 * candidates of earlier rounds — fixed before any outcome of this round's proposals exists — and the order is a seeded
 * weighted draw, not a sort: race.ts weights each draw by 1/probability, which keeps the confidence sequence valid.
 */

/** A task's earlier outcomes, one per earlier candidate that ran it (mean over its repeats), in [0, 1]. */
export type TaskOutcomes = ReadonlyMap<string, readonly number[]>;

/** How much earlier candidates disagreed on a task: the spread of their outcomes (0 with fewer than two). */
export function disagreement(outcomes: readonly number[]): number {
  if (outcomes.length < 2) return 0;
  return Math.max(...outcomes) - Math.min(...outcomes);
}

/** Each task's draw weight: 1, up to `weight` where earlier candidates disagreed completely. */
export function informativeWeights(ids: readonly string[], outcomes: TaskOutcomes, weight: number): number[] {
  return ids.map((id) => 1 + (weight - 1) * disagreement(outcomes.get(id) ?? []));
}

export interface RaceSchedule {
  /** Task ids in draw order. */
  order: string[];
  /** The draw weight of each task of `order`, position by position; null for a uniform order. */
  weights: number[] | null;
}

/**
 * The round's order: `seeded` (a uniform order, `base`: the run's one seeded shuffle) when every weight is equal,
 * else a weighted draw without replacement by Efraimidis–Spirakis keys (u^(1/w), largest first), which draws the
 * same orders, with the same probabilities, as picking each next task with probability w / Σ w over the tasks left.
 * Seeded by the run seed and the round.
 */
export function weightedOrder(
  seed: number,
  round: number,
  base: readonly string[],
  weightOf: ReadonlyMap<string, number>,
): RaceSchedule {
  const weights = base.map((id) => weightOf.get(id) ?? 1);
  if (weights.every((w) => w === weights[0])) return { order: [...base], weights: null };
  const rng = createRng(seed, "race-order", "informative", round);
  // ln(u)/w orders as u^(1/w); u in (0, 1]. Ties (measure zero) fall back on the base order.
  const keyed = base.map((id, position) => ({
    id,
    position,
    weight: weights[position] as number,
    key: Math.log(1 - rng.next()) / (weights[position] as number),
  }));
  keyed.sort((a, b) => b.key - a.key || a.position - b.position);
  return { order: keyed.map((k) => k.id), weights: keyed.map((k) => k.weight) };
}

/**
 * Successive halving within a round (`halving: {keep, first}`): every proposal starts on the same tasks; at rungs of
 * `first`, 2·`first`, 4·`first`, … tasks the proposals still racing are ranked by their mean paired difference so far
 * (all on the same tasks) and only the best ⌈keep · m⌉ of m race on (at least one). It only ever rejects, so it cannot
 * make a race accept a proposal that is not better; it gives up on proposals that trail the round's others, which
 * could at most have been accepted and then lost to a proposal further ahead.
 */
export interface Halving {
  keep: number;
  first: number;
}

/** Whether a rung lies in (before, now]: the look that reaches `now` tasks from `before` halves. */
export function crossesRung(before: number, now: number, first: number): boolean {
  for (let rung = first; rung <= now; rung *= 2) if (rung > before) return true;
  return false;
}

/**
 * The proposals a rung drops: of those still racing, all but the best ⌈keep · m⌉ by mean difference (higher first,
 * then the lower proposal number, so a tie is decided as `bestProposal` decides it). Returns their proposal numbers.
 */
export function halvingDrops(
  racing: ReadonlyArray<{ proposal: number; difference: number }>,
  keep: number,
): number[] {
  // The epsilon keeps 0.1 · 30 (3.0000000000000004 in floating point) at 3.
  const kept = Math.max(1, Math.ceil(keep * racing.length - 1e-9));
  const ranked = [...racing].sort((a, b) => b.difference - a.difference || a.proposal - b.proposal);
  return ranked.slice(kept).map((r) => r.proposal);
}

/**
 * Search tasks a round of `proposals` proposals that change no outcome runs in all (`run --plan`'s expectation): each
 * races until the confidence sequence rejects a mean difference of 0, or until a halving rung drops it (they tie, so
 * the higher-numbered go first). Pure; `decided(n)`: whether the race decides all-zero differences after n tasks.
 */
export function unchangedRoundTasks(
  population: number,
  proposals: number,
  batch: number,
  halving: Halving | undefined,
  decided: (n: number) => boolean,
): number {
  let racing = proposals;
  let total = 0;
  let n = 0;
  while (racing > 0 && n < population) {
    const before = n;
    n = Math.min(population, n + batch);
    if (decided(n)) return total + racing * n;
    if (halving && crossesRung(before, n, halving.first)) {
      const kept = Math.max(1, Math.ceil(halving.keep * racing - 1e-9));
      total += (racing - kept) * n;
      racing = kept;
    }
  }
  return total + racing * n;
}
