/**
 * Two harnesses' pass rates on the same episodes (a 2×2 table of paired outcomes): the difference with Bonett and
 * Price's adjusted Wald interval for paired proportions (Statistics in Medicine 2012, 31:1055) and McNemar's exact
 * test on the discordant pairs. Pure.
 *
 * Why Bonett–Price: the two rates are measured on the same (task, seed) episodes, so they are correlated and an
 * interval for independent samples (Newcombe's hybrid score, Wald) is too wide when the harnesses mostly agree and
 * misplaced when they do not. Among the intervals for a paired difference, Fagerland, Lydersen and Laake's review
 * (Statistics in Medicine 2014, 33:2850) recommends the Bonett–Price adjusted Wald interval for its near-nominal
 * coverage at small n; it is closed-form, and unlike Newcombe's paired method never has zero width when every pair
 * agrees.
 */
import { badInput } from "../../core";
import { type McNemarResult, mcnemarExact } from "./tests";

const Z95 = 1.959963984540054;

/** Paired outcomes: both pass, only the first, only the second, neither. */
export interface PairedTable {
  both: number;
  firstOnly: number;
  secondOnly: number;
  neither: number;
}

export interface PairedRateDifference {
  n: number;
  /** second − first = (secondOnly − firstOnly) / n; null when n = 0. */
  delta: number | null;
  low: number | null;
  high: number | null;
  /** The interval excludes 0. */
  clear: boolean;
}

/** One metric over a set of pairs: its table, both sides' counts, the paired difference and McNemar. */
export interface PairedOutcome extends PairedRateDifference {
  table: PairedTable;
  /** Pairs where the first / the second had the outcome. */
  first: number;
  second: number;
  mcnemar: McNemarResult;
}

function checkCounts(table: PairedTable): void {
  for (const [name, value] of Object.entries(table))
    if (!Number.isInteger(value) || value < 0)
      throw badInput(`paired count ${name} must be a count, got ${value}`);
}

/**
 * Bonett and Price's adjusted Wald interval for p₂ − p₁ from paired data: one success added to each discordant cell
 * (p̃ = (count + 1)/(n + 2)), then Δ̃ ± z·√((p̃₁₂ + p̃₂₁ − Δ̃²)/(n + 2)), clipped to [−1, 1]. `delta` is the plain
 * estimate (c − b)/n.
 */
export function pairedDifference(table: PairedTable): PairedRateDifference {
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

/** The 2×2 table of an outcome over pairs (first, second). */
export function pairedTable<T>(
  pairs: ReadonlyArray<readonly [T, T]>,
  has: (episode: T) => boolean,
): PairedTable {
  const table: PairedTable = { both: 0, firstOnly: 0, secondOnly: 0, neither: 0 };
  for (const [first, second] of pairs) {
    const [x, y] = [has(first), has(second)];
    if (x && y) table.both += 1;
    else if (x) table.firstOnly += 1;
    else if (y) table.secondOnly += 1;
    else table.neither += 1;
  }
  return table;
}

/** An outcome compared over pairs: every comparison hsearch prints (diff, compare, report, viewer) is this. */
export function pairedOutcome<T>(
  pairs: ReadonlyArray<readonly [T, T]>,
  has: (episode: T) => boolean,
): PairedOutcome {
  const table = pairedTable(pairs, has);
  return {
    table,
    first: table.both + table.firstOnly,
    second: table.both + table.secondOnly,
    ...pairedDifference(table),
    mcnemar: mcnemarExact(table.firstOnly, table.secondOnly),
  };
}
