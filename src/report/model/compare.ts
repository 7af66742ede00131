/**
 * One harness against another on the episodes both ran (same tasks, same repeats): rates with k/n and 95% Wilson
 * intervals per suite and per family, each difference with its paired 95% interval and McNemar's test
 * (src/scoring/pairing, the same numbers `hsearch compare` prints), the episodes that flipped. Pure: rollout records in, numbers out; the report, the viewer and
 * `hsearch diff --from --to` render it.
 */
import {
  type BuiltinMetric,
  builtinMetric,
  bySuiteMetrics,
  episodeHas,
  type McNemarResult,
  matchEpisodes,
  type PairedTable,
  pairedOutcome,
  type Rate,
  type RateDifference,
  unpairedDifference,
  wilson,
} from "../../scoring";
import type { Purpose, RolloutRecord } from "../../store/types";

export type { Rate, RateDifference as Difference };
export { unpairedDifference, wilson };

export interface GroupDifference extends RateDifference {
  /** A suite ("retail"), a family ("trap") or "all". */
  group: string;
  /** A built-in metric marked per suite in the catalogue (strict SA, solve, false abstention). */
  metric: string;
  /** False abstention is better lower. */
  lowerIsBetter: boolean;
  table: PairedTable;
  mcnemar: McNemarResult;
}

export interface Flip {
  task_id: string;
  repeat: number;
  suite: string;
  kind: string;
  family: string | null;
  /** fail→pass ("gain") or pass→fail ("loss") on the objective's outcome (strict SA or solve). */
  direction: "gain" | "loss";
  beforeKey: string;
  afterKey: string;
}

export interface Comparison {
  purpose: Purpose;
  before: string;
  after: string;
  /** Episodes scored on both sides (infrastructure errors left out). */
  paired: number;
  bySuite: GroupDifference[];
  byFamily: GroupDifference[];
  flips: Flip[];
  /** The objective's outcome (pass) over all pairs: its paired difference. */
  pass: RateDifference;
  /** Exact two-sided McNemar on the flips: b = losses, c = gains. */
  mcnemar: { gains: number; losses: number; p_value: number };
}

/**
 * A stored rate back as k/n with its 95% Wilson interval: every rate of a summary is a count over the block's n, so
 * rounding recovers the exact count. Null when there is no n (the block is missing).
 */
export function summaryRate(rate: number | null | undefined, n: number | null | undefined): Rate | null {
  if (rate === null || rate === undefined || n === null || n === undefined || n <= 0) return null;
  return wilson(Math.round(rate * n), n);
}

const scored = (r: RolloutRecord) => r.scores.kind !== "infra_error";

/** The objective's outcome of one episode: strict SA on a blocked task, solve on a feasible one. */
export function passed(rollout: RolloutRecord): boolean {
  return rollout.kind === "blocked" ? rollout.scores.strict_sa === true : rollout.scores.solve === true;
}

type Pairs = ReadonlyArray<readonly [RolloutRecord, RolloutRecord]>;

function pairedRates(pairs: Pairs, has: (r: RolloutRecord) => boolean) {
  const outcome = pairedOutcome(pairs, has);
  const { delta, low, high, clear, table, mcnemar } = outcome;
  return {
    before: wilson(outcome.first, pairs.length),
    after: wilson(outcome.second, pairs.length),
    delta,
    low,
    high,
    clear,
    table,
    mcnemar,
  };
}

function groupDifference(group: string, metric: BuiltinMetric, pairs: Pairs): GroupDifference {
  return {
    group,
    metric: metric.name,
    lowerIsBetter: !metric.higherIsBetter,
    ...pairedRates(pairs, (r) => episodeHas(metric, r.scores)),
  };
}

export function compareRollouts(
  purpose: Purpose,
  beforeCommit: string,
  afterCommit: string,
  beforeRollouts: readonly RolloutRecord[],
  afterRollouts: readonly RolloutRecord[],
): Comparison {
  const { pairs } = matchEpisodes(beforeRollouts.filter(scored), afterRollouts.filter(scored));
  const where = (keep: (r: RolloutRecord) => boolean) => pairs.filter(([b]) => keep(b));

  const suites = [...new Set(pairs.map(([b]) => b.suite))].sort();
  const bySuite: GroupDifference[] = [];
  for (const suite of [...suites, ...(suites.length > 1 ? ["all"] : [])]) {
    const inSuite = (r: RolloutRecord) => suite === "all" || r.suite === suite;
    for (const metric of bySuiteMetrics()) {
      const defined = where((r) => inSuite(r) && metric.kinds.some((kind) => kind === r.kind));
      if (defined.length > 0) bySuite.push(groupDifference(suite, metric, defined));
    }
  }
  const families = [...new Set(pairs.flatMap(([r]) => (r.kind === "blocked" && r.family ? [r.family] : [])))];
  const byFamily = families.sort().map((family) =>
    groupDifference(
      family,
      builtinMetric("strict_sa"),
      where((r) => r.kind === "blocked" && r.family === family),
    ),
  );

  const flips: Flip[] = [];
  for (const [b, a] of pairs) {
    if (passed(b) === passed(a)) continue;
    flips.push({
      task_id: b.task_id,
      repeat: b.repeat,
      suite: b.suite,
      kind: b.kind,
      family: b.family,
      direction: passed(a) ? "gain" : "loss",
      beforeKey: b.key,
      afterKey: a.key,
    });
  }
  const { table, mcnemar, ...pass } = pairedRates(pairs, passed);
  return {
    purpose,
    before: beforeCommit,
    after: afterCommit,
    paired: pairs.length,
    bySuite,
    byFamily,
    flips,
    pass,
    mcnemar: { gains: table.secondOnly, losses: table.firstOnly, p_value: mcnemar.p_value },
  };
}
