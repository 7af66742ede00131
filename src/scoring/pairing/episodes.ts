/**
 * Matching two harnesses' episodes: the same task and the same repeat (hence the same seed) on both sides. Only
 * matched episodes are compared; what one side ran alone is counted, never paired with something else. Pure.
 */

export interface PairableEpisode {
  task_id: string;
  repeat: number;
}

export interface MatchedEpisodes<T> {
  /** (first, second) for each episode both ran, by task id then repeat. */
  pairs: Array<readonly [T, T]>;
  /** Episodes of one side only. */
  onlyFirst: number;
  onlySecond: number;
}

/** An episode's (task, repeat) as one key: what matching compares. */
export const episodeKey = (episode: PairableEpisode) => `${episode.task_id}#${episode.repeat}`;

export function matchEpisodes<T extends PairableEpisode>(
  first: readonly T[],
  second: readonly T[],
): MatchedEpisodes<T> {
  const secondByKey = new Map(second.map((episode) => [episodeKey(episode), episode]));
  const pairs = first
    .flatMap((episode) => {
      const other = secondByKey.get(episodeKey(episode));
      return other ? [[episode, other] as const] : [];
    })
    .sort(([x], [y]) => x.task_id.localeCompare(y.task_id) || x.repeat - y.repeat);
  return { pairs, onlyFirst: first.length - pairs.length, onlySecond: second.length - pairs.length };
}
