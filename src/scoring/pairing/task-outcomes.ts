/**
 * Two harnesses' episodes under an objective, task by task: the episodes it counts (a re-run of a (task, repeat)
 * replaces the earlier score), each task's outcomes, and the paired difference per task over the repeats both sides
 * scored. The acceptance rules' races and early rejection compare harnesses with these. Pure.
 */
import type { EpisodeScore } from "../episode";
import { type ObjectiveName, objectiveOf } from "../objective";
import { episodeKey, matchEpisodes } from "./episodes";

/** The episodes the objective counts, the last score of a (task, repeat) standing for it, in first-seen order. */
export function countedEpisodes(scores: readonly EpisodeScore[], name: ObjectiveName): EpisodeScore[] {
  const objective = objectiveOf(name);
  const latest = new Map<string, EpisodeScore>();
  for (const score of scores)
    if (objective.episodeValue(score) !== null) latest.set(episodeKey(score), score);
  return [...latest.values()];
}

/** Each task's outcomes under the objective (one per counted repeat), tasks in the order they first appear. */
export function taskOutcomes(scores: readonly EpisodeScore[], name: ObjectiveName): Map<string, number[]> {
  const value = objectiveOf(name).episodeValue;
  const out = new Map<string, number[]>();
  for (const score of countedEpisodes(scores, name)) {
    const values = out.get(score.task_id) ?? [];
    values.push(value(score) as number);
    out.set(score.task_id, values);
  }
  return out;
}

/** An episode both sides scored under the objective: its outcome on each side. */
export interface PairedOutcomeValues {
  task_id: string;
  repeat: number;
  first: number;
  second: number;
}

/** The episodes both sides scored under the objective (matched by task and repeat), by task id then repeat. */
export function pairedOutcomeValues(
  first: readonly EpisodeScore[],
  second: readonly EpisodeScore[],
  name: ObjectiveName,
): PairedOutcomeValues[] {
  const value = objectiveOf(name).episodeValue;
  const { pairs } = matchEpisodes(countedEpisodes(first, name), countedEpisodes(second, name));
  return pairs.map(([a, b]) => ({
    task_id: a.task_id,
    repeat: a.repeat,
    first: value(a) as number,
    second: value(b) as number,
  }));
}

/**
 * Per task that both sides scored under the objective: the mean over the repeats both scored of (second − first).
 * A task absent here was left unpaired (not counted, not run, or an infrastructure error on one side).
 */
export function pairedTaskDifferences(
  first: readonly EpisodeScore[],
  second: readonly EpisodeScore[],
  name: ObjectiveName,
): Map<string, number> {
  const byTask = new Map<string, { sum: number; count: number }>();
  for (const pair of pairedOutcomeValues(first, second, name)) {
    const entry = byTask.get(pair.task_id) ?? { sum: 0, count: 0 };
    entry.sum += pair.second - pair.first;
    entry.count++;
    byTask.set(pair.task_id, entry);
  }
  return new Map([...byTask].map(([task, { sum, count }]) => [task, sum / count]));
}
