/**
 * The one comparison that is not paired: two stored rates side by side (the report's metric tables and a run's own
 * metrics read summaries, not episodes), whose difference gets Newcombe's hybrid score interval for independent
 * proportions. Episodes of two harnesses are compared paired (proportions.ts). Pure.
 */
import type { Rate } from "../wilson";

/** Two rates and their difference: paired (Bonett–Price) over episodes, or independent (Newcombe) over summaries. */
export interface RateDifference {
  before: Rate;
  after: Rate;
  /** after − before, null when either side has no episode. */
  delta: number | null;
  /** Its 95% interval. */
  low: number | null;
  high: number | null;
  /** The interval excludes 0: colour it; otherwise it is no evidence of a change. */
  clear: boolean;
}

/** Newcombe's hybrid score interval for p₂ − p₁ of two independent rates (method 10): good coverage at small n. */
export function unpairedDifference(before: Rate, after: Rate): RateDifference {
  if (before.rate === null || after.rate === null)
    return { before, after, delta: null, low: null, high: null, clear: false };
  const [l1, u1, l2, u2] = [before.low, before.high, after.low, after.high] as number[] as [
    number,
    number,
    number,
    number,
  ];
  const p1 = before.rate;
  const p2 = after.rate;
  const delta = p2 - p1;
  const low = delta - Math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2);
  const high = delta + Math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2);
  return { before, after, delta, low, high, clear: low > 0 || high < 0 };
}
