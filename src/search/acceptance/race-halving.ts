/**
 * Sequential paired racing (docs/DESIGN.md §7), pure: is a proposal's paired difference against the incumbent decided
 * after the tasks scored so far, in the run's seeded task order?
 *
 * The search split is a finite population of N tasks and the race samples it without replacement in a seeded random
 * order. Per task the paired difference d = proposal − incumbent (the objective's outcome, mean over repeats) lies in
 * [−1, 1]. Two one-sided betting e-processes for sampling without replacement (Waudby-Smith & Ramdas, "Confidence
 * sequences for sampling without replacement", 2020; "Estimating means of bounded random variables by betting", 2023)
 * decide the race, each at α/2, valid under optional stopping by Ville's inequality:
 * - better:     H0: mean d ≤ 0 over the N tasks; rejected ⇒ the proposal is accepted;
 * - not better: H0: mean d ≥ margin; rejected ⇒ the proposal is rejected (it is not better by the margin).
 * Each wealth is the average over a fixed grid of bets λ of Π (1 + λ·x_i), with x_i the task's difference centred on
 * what the null leaves for the tasks not yet drawn; a null that the tasks drawn so far make impossible is refuted with
 * certainty (infinite evidence). When every task is scored the mean is known and the race ends on its sign (the
 * full protocol's `greater`). Acceptance needs at least `minTasks` tasks; a rejection may come at any look.
 *
 * Weighted draws (`order: informative`, race-plan.ts): the order may instead be drawn with probability proportional to
 * per-task weights fixed before the round (successive sampling without replacement: the next task is task i of the
 * remaining R with probability q_i = w_i / Σ_R w). The draw's importance-weighted difference Y = d / (|R| q_i) then has
 * conditional mean Σ_R d / |R| — exactly the per-task mean the null leaves for the remaining tasks — so each factor
 * 1 + λ(Y − m) still has mean 1 under the null and the wealth stays a test martingale (Ville applies unchanged). What
 * a weighted order costs: Y ranges over [−ρ, ρ] with ρ = mean(w_R) / min(w_R), so the bets are capped lower while
 * heavier tasks remain. Reordering by past outcomes without this weighting would not be valid: the sampling-without-
 * replacement guarantee rests on every remaining task being equally likely next, and a fixed order that puts the
 * tasks where candidates disagreed first can show a gain there that the rest of the split takes back.
 */
export interface RaceRule {
  alpha: number;
  /** Tasks per look: decisions are taken after each batch. */
  batch: number;
  /** Never accepted on fewer tasks than this. */
  minTasks: number;
  /** The not-better test's margin on the mean difference. */
  margin: number;
}

/** The bets mixed in each wealth (a mixture of test martingales is one; no bet is tuned to the data). */
const BETS = [0.25, 0.5, 0.75, 0.95] as const;

/**
 * Wealth of the betting e-process for H0: the population mean is ≥ `mu0` (`side` = "below": evidence the mean is
 * below mu0) or ≤ `mu0` (`side` = "above"), after the differences in draw order, sampling without replacement from
 * `population` values in [−1, 1].
 */
export function wealth(
  diffs: readonly number[],
  population: number,
  mu0: number,
  side: "above" | "below",
  weights?: readonly number[],
): number {
  const sign = side === "above" ? 1 : -1;
  const components: number[] = BETS.map(() => 1);
  const draws = weights ? weightedDraws(weights, population) : null;
  let sum = 0;
  for (const [i, d] of diffs.entries()) {
    const remaining = population - i;
    // What the null leaves for the tasks not drawn yet, per task: the mean the next draw has under H0.
    const m = (population * mu0 - sum) / remaining;
    // Outside [−1, 1] no values of the remaining tasks can meet the null: it is refuted for certain.
    if (sign * m < -1) return Number.POSITIVE_INFINITY;
    if (sign * m > 1) {
      // The null is certain from here on for this side: no evidence against it can come.
      return 0;
    }
    // Uniform order: Y = d, ρ = 1. Weighted: the importance-weighted draw and its range (see the module comment).
    const scale = draws ? (draws.meanWeight[i] as number) / (weights?.[i] as number) : 1;
    const rho = draws ? (draws.meanWeight[i] as number) / (draws.minWeight[i] as number) : 1;
    const x = sign * (d * scale - m);
    // x ≥ −ρ − sign·m; the cap keeps 1 + λx ≥ 0.05.
    const cap = 0.95 / (rho + sign * m);
    for (const [k, bet] of BETS.entries())
      components[k] = (components[k] as number) * (1 + Math.min(bet, cap) * x);
    sum += d;
  }
  return components.reduce((a, b) => a + b, 0) / components.length;
}

/** Per draw position i of a weighted order: mean and least weight of the tasks not drawn before it (i, i+1, …). */
function weightedDraws(
  weights: readonly number[],
  population: number,
): { meanWeight: number[]; minWeight: number[] } {
  if (weights.length !== population)
    throw new Error(`race weights: ${weights.length} weights for ${population} tasks`);
  const meanWeight = new Array<number>(population);
  const minWeight = new Array<number>(population);
  let total = 0;
  let least = Number.POSITIVE_INFINITY;
  for (let i = population - 1; i >= 0; i--) {
    const w = weights[i] as number;
    if (!(w > 0)) throw new Error(`race weights: weight ${w} at ${i} is not positive`);
    total += w;
    least = Math.min(least, w);
    meanWeight[i] = total / (population - i);
    minWeight[i] = least;
  }
  return { meanWeight, minWeight };
}

export type RaceVerdict = "accepted" | "rejected" | "more";

export interface RaceLook {
  verdict: RaceVerdict;
  /** Tasks the decision (or the look) rests on. */
  n: number;
  /** Mean difference over those tasks. */
  difference: number;
  /** The two e-values: against "not better" (accept) and against "better by the margin" (reject). */
  eBetter: number;
  eNotBetter: number;
  reason: string;
}

/**
 * The decision after the differences drawn so far (in the round's order); `population` = the search split's tasks;
 * `weights`: the order's draw weights, position by position (absent: a uniform seeded order).
 */
export function raceLook(
  diffs: readonly number[],
  population: number,
  rule: RaceRule,
  weights?: readonly number[],
): RaceLook {
  const n = diffs.length;
  const sum = diffs.reduce((a, b) => a + b, 0);
  const difference = n === 0 ? 0 : sum / n;
  const eBetter = wealth(diffs, population, 0, "above", weights);
  const eNotBetter = wealth(diffs, population, rule.margin, "below", weights);
  const threshold = 2 / rule.alpha;
  const base = { n, difference, eBetter, eNotBetter };
  const fmt = (e: number) => (Number.isFinite(e) ? e.toFixed(1) : "∞");
  const diff = `${difference >= 0 ? "+" : ""}${difference.toFixed(4)} on ${n} tasks`;
  if (n >= population) {
    return sum > 0
      ? { ...base, verdict: "accepted", reason: `${diff}: every task scored, ahead` }
      : { ...base, verdict: "rejected", reason: `${diff}: every task scored, not ahead` };
  }
  if (eBetter >= threshold && n >= rule.minTasks)
    return { ...base, verdict: "accepted", reason: `${diff}: e = ${fmt(eBetter)} ≥ ${fmt(threshold)}` };
  if (eNotBetter >= threshold)
    return {
      ...base,
      verdict: "rejected",
      reason: `${diff}: not better by ${rule.margin} (e = ${fmt(eNotBetter)} ≥ ${fmt(threshold)})`,
    };
  return { ...base, verdict: "more", reason: diff };
}

/** How many tasks the next look of a race covers, after `scored` tasks: one batch more, at most the population. */
export function nextLook(scored: number, population: number, batch: number): number {
  return Math.min(population, scored + batch);
}
