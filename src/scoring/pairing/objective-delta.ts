/**
 * The change of an objective score (a mean over tasks) from one harness to another, with a 95% interval: per task,
 * the mean episode value over its scored repeats on each side; over the tasks both sides scored, the mean of the
 * per-task differences (after − before) and a seeded paired bootstrap interval of that mean. Pure.
 */
import type { EpisodeScore } from "../episode";
import type { ObjectiveName } from "../objective";
import { objectiveOf } from "../objective";
import { pairedBootstrapMeanDifference } from "./tests";

export interface TaskEpisode {
  task_id: string;
  scores: EpisodeScore;
}

export interface PairedDelta {
  /** Tasks scored by both harnesses. */
  tasks: number;
  /** Mean over those tasks of (after − before). */
  delta: number;
  low: number;
  high: number;
  /** The interval excludes 0: colour it; otherwise it is no evidence of a change. */
  clear: boolean;
}

/** Each task's mean episode value on the objective; tasks the objective does not count (or left unscored) are absent. */
function taskMeans(episodes: readonly TaskEpisode[], objective: ObjectiveName): Map<string, number> {
  const value = objectiveOf(objective).episodeValue;
  const sums = new Map<string, { sum: number; n: number }>();
  for (const episode of episodes) {
    const v = value(episode.scores);
    if (v === null) continue;
    const entry = sums.get(episode.task_id) ?? { sum: 0, n: 0 };
    entry.sum += v;
    entry.n += 1;
    sums.set(episode.task_id, entry);
  }
  return new Map([...sums].map(([task, { sum, n }]) => [task, sum / n]));
}

/** Null when no task was scored by both. `seed` and `path` make the bootstrap reproducible. */
export function pairedObjectiveDelta(
  before: readonly TaskEpisode[],
  after: readonly TaskEpisode[],
  objective: ObjectiveName,
  options: { seed: number | string; path?: Array<string | number>; resamples?: number },
): PairedDelta | null {
  const first = taskMeans(before, objective);
  const second = taskMeans(after, objective);
  const tasks = [...second.keys()].filter((task) => first.has(task)).sort();
  if (tasks.length === 0) return null;
  const result = pairedBootstrapMeanDifference(
    tasks.map((task) => second.get(task) as number),
    tasks.map((task) => first.get(task) as number),
    { seed: options.seed, path: ["objective-delta", ...(options.path ?? [])], resamples: options.resamples },
  );
  const [low, high] = result.ci;
  return { tasks: tasks.length, delta: result.mean_difference, low, high, clear: low > 0 || high < 0 };
}
