/**
 * One harness against another on the episodes both ran (same tasks, same repeats): rates with k/n and 95% Wilson
 * intervals per suite and per family, each difference with a 95% Newcombe interval, the episodes that flipped, and
 * an exact McNemar test on the flips. Pure: rollout records in, numbers out; the report, the viewer and
 * `hsearch diff --from --to` render it.
 */
import { builtinMetric } from "../scoring/metrics";
import { mcnemarExact } from "../scoring/paired-tests";
import { type Rate, wilson } from "../scoring/wilson";
import type { Purpose, RolloutRecord } from "../store/records";
import { RUN_EVENT_SCHEMAS } from "../store/run-events";

export type { Rate };
export { wilson };

export interface Difference {
  before: Rate;
  after: Rate;
  /** after − before, null when either side has no episode. */
  delta: number | null;
  /** The 95% Newcombe (hybrid Wilson) interval of the difference. */
  low: number | null;
  high: number | null;
  /** The interval excludes 0: colour it; otherwise it is no evidence of a change. */
  clear: boolean;
}

export type OutcomeMetric = "strict_sa" | "solve" | "false_abstention";

export interface GroupDifference extends Difference {
  /** A suite ("retail"), a family ("trap") or "all". */
  group: string;
  metric: OutcomeMetric;
  /** False abstention is better lower. */
  lowerIsBetter: boolean;
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

/** Newcombe's hybrid score interval for p₂ − p₁ (method 10): good coverage with small n, unlike Wald's. */
export function difference(before: Rate, after: Rate): Difference {
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

/** The suite of a task: its id's prefix for the shipped suites; terminal for anything else (Harbor imports). */
export function suiteOfTask(taskId: string, plugins?: ReadonlyMap<string, string>): string {
  return plugins?.get(taskId) ?? (taskId.startsWith("retail-") ? "retail" : "terminal");
}

/**
 * The suite of each task of a run's plug-in suites (src/plugins), from the `plugin_modules` event the run recorded
 * when it began (each suite module's name and task ids); empty for a run without plug-ins. Read defensively: it is
 * only a label, and the plug-in loader checked the event when it was written.
 */
export function pluginTaskSuites(
  events: ReadonlyArray<{ kind: string; data: Record<string, unknown> }>,
): Map<string, string> {
  const suites = new Map<string, string>();
  const recorded = RUN_EVENT_SCHEMAS.plugin_modules.safeParse(
    events.findLast((event) => event.kind === "plugin_modules")?.data,
  );
  for (const module of recorded.success ? recorded.data.modules : []) {
    if (module.suite === undefined || module.tasks === undefined) continue;
    for (const id of module.tasks) suites.set(id, module.suite);
  }
  return suites;
}

const scored = (r: RolloutRecord) => r.scores.kind !== "infra_error";
const episodeKey = (r: RolloutRecord) => `${r.task_id}#${r.repeat}`;

/** The objective's outcome of one episode: strict SA on a blocked task, solve on a feasible one. */
export function passed(rollout: RolloutRecord): boolean {
  return rollout.kind === "blocked" ? rollout.scores.strict_sa === true : rollout.scores.solve === true;
}

function rateOf(rollouts: readonly RolloutRecord[], metric: OutcomeMetric): Rate {
  return wilson(rollouts.filter((r) => r.scores[metric] === true).length, rollouts.length);
}

function groupDifference(
  group: string,
  metric: OutcomeMetric,
  before: readonly RolloutRecord[],
  after: readonly RolloutRecord[],
): GroupDifference {
  return {
    group,
    metric,
    lowerIsBetter: !builtinMetric(metric).higherIsBetter,
    ...difference(rateOf(before, metric), rateOf(after, metric)),
  };
}

export function compareRollouts(
  purpose: Purpose,
  beforeCommit: string,
  afterCommit: string,
  beforeRollouts: readonly RolloutRecord[],
  afterRollouts: readonly RolloutRecord[],
  /** Plug-in suites' tasks by id (pluginTaskSuites); the built-in suites are told apart by their ids. */
  plugins?: ReadonlyMap<string, string>,
): Comparison {
  const afterByKey = new Map(afterRollouts.filter(scored).map((r) => [episodeKey(r), r]));
  const pairs = beforeRollouts
    .filter(scored)
    .flatMap((b) => {
      const a = afterByKey.get(episodeKey(b));
      return a ? [[b, a] as const] : [];
    })
    .sort(([x], [y]) => x.task_id.localeCompare(y.task_id) || x.repeat - y.repeat);
  const before = pairs.map(([b]) => b);
  const after = pairs.map(([, a]) => a);
  const select = (rows: readonly RolloutRecord[], keep: (r: RolloutRecord) => boolean) => rows.filter(keep);

  const suites = [...new Set(before.map((r) => suiteOfTask(r.task_id, plugins)))].sort();
  const bySuite: GroupDifference[] = [];
  for (const suite of [...suites, ...(suites.length > 1 ? ["all"] : [])]) {
    const inSuite = (r: RolloutRecord) => suite === "all" || suiteOfTask(r.task_id, plugins) === suite;
    const blocked = (r: RolloutRecord) => inSuite(r) && r.kind === "blocked";
    const feasible = (r: RolloutRecord) => inSuite(r) && r.kind === "feasible";
    if (before.some(blocked))
      bySuite.push(groupDifference(suite, "strict_sa", select(before, blocked), select(after, blocked)));
    if (before.some(feasible)) {
      bySuite.push(groupDifference(suite, "solve", select(before, feasible), select(after, feasible)));
      bySuite.push(
        groupDifference(suite, "false_abstention", select(before, feasible), select(after, feasible)),
      );
    }
  }
  const families = [...new Set(before.flatMap((r) => (r.kind === "blocked" && r.family ? [r.family] : [])))];
  const byFamily = families.sort().map((family) => {
    const inFamily = (r: RolloutRecord) => r.kind === "blocked" && r.family === family;
    return groupDifference(family, "strict_sa", select(before, inFamily), select(after, inFamily));
  });

  const flips: Flip[] = [];
  for (const [b, a] of pairs) {
    if (passed(b) === passed(a)) continue;
    flips.push({
      task_id: b.task_id,
      repeat: b.repeat,
      suite: suiteOfTask(b.task_id, plugins),
      kind: b.kind,
      family: b.family,
      direction: passed(a) ? "gain" : "loss",
      beforeKey: b.key,
      afterKey: a.key,
    });
  }
  const gains = flips.filter((f) => f.direction === "gain").length;
  const losses = flips.length - gains;
  return {
    purpose,
    before: beforeCommit,
    after: afterCommit,
    paired: pairs.length,
    bySuite,
    byFamily,
    flips,
    mcnemar: { gains, losses, p_value: mcnemarExact(losses, gains).p_value },
  };
}
