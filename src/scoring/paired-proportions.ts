/**
 * Two harnesses' pass rates on the same episodes (a 2×2 table of paired outcomes): the difference with Bonett and
 * Price's adjusted Wald interval for paired proportions (Statistics in Medicine 2012, 31:1055) and McNemar's test
 * on the discordant pairs — exact binomial while they are few, the continuity-corrected χ² beyond (where the two
 * agree closely). Pure.
 */
import { badInput } from "../core/errors";
import { mcnemarExact } from "./paired-tests";

const Z95 = 1.959963984540054;

/** Below this many discordant pairs McNemar's p is the exact binomial one; from it on, χ² with correction. */
export const EXACT_MCNEMAR_BELOW = 25;

/** Paired outcomes: both pass, only the first, only the second, neither. */
export interface PairedTable {
  both: number;
  firstOnly: number;
  secondOnly: number;
  neither: number;
}

export interface PairedDifference {
  n: number;
  /** second − first = (secondOnly − firstOnly) / n; null when n = 0. */
  delta: number | null;
  low: number | null;
  high: number | null;
  /** The interval excludes 0. */
  clear: boolean;
}

export interface McNemar {
  /** Pairs the first passed and the second failed. */
  b: number;
  /** Pairs the second passed and the first failed. */
  c: number;
  p_value: number;
  method: "exact" | "chi2-cc";
}

function checkCounts(table: PairedTable): void {
  for (const [name, value] of Object.entries(table))
    if (!Number.isInteger(value) || value < 0)
      throw badInput(`paired count ${name} must be a count, got ${value}`);
}

/**
 * Bonett and Price's adjusted Wald interval for p₂ − p₁ from paired data: one success added to each discordant cell
 * (p̃ = (count + 1)/(n + 2)), then Δ̃ ± z·√((p̃₁₂ + p̃₂₁ − Δ̃²)/(n + 2)), clipped to [−1, 1]. Near-nominal coverage at
 * small n, and never the zero-width interval Newcombe's paired method gives when every pair agrees at p = ½.
 * `delta` is the plain estimate (c − b)/n.
 */
export function pairedDifference(table: PairedTable): PairedDifference {
  checkCounts(table);
  const { both, firstOnly: b, secondOnly: c, neither } = table;
  const n = both + b + c + neither;
  if (n === 0) return { n, delta: null, low: null, high: null, clear: false };
  const pb = (b + 1) / (n + 2);
  const pc = (c + 1) / (n + 2);
  const adjusted = pc - pb;
  const half = Z95 * Math.sqrt((pb + pc - adjusted ** 2) / (n + 2));
  const low = Math.max(-1, adjusted - half);
  const high = Math.min(1, adjusted + half);
  return { n, delta: (c - b) / n, low, high, clear: low > 0 || high < 0 };
}

/** McNemar on b (first only) and c (second only): exact below EXACT_MCNEMAR_BELOW discordant pairs. */
export function mcnemar(b: number, c: number): McNemar {
  if (b + c < EXACT_MCNEMAR_BELOW) return { b, c, p_value: mcnemarExact(b, c).p_value, method: "exact" };
  const statistic = Math.max(0, Math.abs(b - c) - 1) ** 2 / (b + c);
  // χ²₁ upper tail: P[X > s] = erfc(√(s/2)).
  return { b, c, p_value: Math.min(1, erfc(Math.sqrt(statistic / 2))), method: "chi2-cc" };
}

/** The complementary error function (Numerical Recipes' Chebyshev fit, relative error below 1.2e-7). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
