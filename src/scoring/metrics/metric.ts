/**
 * A metric (docs/DESIGN.md §6): a name, a label, what one episode is worth and how the episodes are reduced. The
 * built-in metrics (M0–M3, strict SA, AbsRec@K, SPL, solve, …) and a researcher's own (a module named by the
 * search config's `metrics`) are the same kind of object, so status, the report and the viewer list both alike.
 */
import type { Family } from "../../domain";
import type { EndReason, Trajectory } from "../../harness";
import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../episode";

export type MetricKind = "blocked" | "feasible";

/**
 * One scored episode as a metric sees it: what the run stored of it (the score and the rollout's columns), and its
 * trajectory, read from the run's trajectory log only when a metric asks for it.
 */
export interface MetricEpisode {
  task_id: string;
  kind: MetricKind;
  family: Family | null;
  repeat: number;
  score: BlockedEpisodeScore | FeasibleEpisodeScore;
  end_reason: EndReason;
  /** Agent steps the episode took. */
  steps: number;
  input_tokens: number;
  output_tokens: number;
  usd: number;
  /** The authenticated record of the episode (messages, tool calls, effects, each with its author and step). */
  trajectory(): Trajectory;
}

export interface Metric {
  /** Its key in tables and JSON: lower-case letters, digits and `_`, starting with a letter. */
  name: string;
  /** How the report and the viewer name it ("strict SA", "M0 recognition"). */
  label: string;
  /** A terminal table's column header, when shorter than the label ("strict"); default the label. */
  short?: string;
  description?: string;
  /** The episodes it is defined on; any other episode is left out of its n. */
  kinds: readonly MetricKind[];
  /**
   * `rate`: the value is a pass (true/false), reduced to k/n with a 95% Wilson interval; `mean`: a number, reduced to
   * its mean over n (no interval: it need not be a proportion).
   */
  reducer: "rate" | "mean";
  /** False when lower is better (false abstention, post-hoc abstention): a difference is coloured the other way. */
  higherIsBetter: boolean;
  /** One episode's value; null leaves the episode out of this metric's n. */
  value(episode: MetricEpisode): boolean | number | null;
}

/**
 * Types a researcher's metric (`export default defineMetric({...})`): the identity, so that an editor checks the
 * fields; the run checks them again when it loads the module.
 */
export function defineMetric<const M extends Metric>(metric: M): M {
  return metric;
}
