/**
 * A derived value remembered while what it was derived from is unchanged. `candidates` names the candidates whose
 * rollouts it reads: the viewer's model of a run forgets the value once any of them has a new rollout (rollouts are
 * only ever added), and keeps it otherwise. A value of commits alone (a diff, a tree) names none: it never changes.
 */
export type Memo = <T>(name: string, candidates: readonly string[], compute: () => T) => T;

/** No memory: every value is computed (a report written once, a status printed once). */
export const computeAlways: Memo = (_name, _candidates, compute) => compute();

/**
 * Remembers the promise of each key: what a key names never changes (git objects are immutable), so a live viewer
 * asks once per key; a failed one is forgotten, so the next ask tries again.
 */
export function rememberPromises<A extends unknown[], V>(
  keyOf: (...args: A) => string,
  load: (...args: A) => Promise<V>,
): (...args: A) => Promise<V> {
  const cache = new Map<string, Promise<V>>();
  return (...args) => {
    const key = keyOf(...args);
    let entry = cache.get(key);
    if (entry === undefined) {
      entry = load(...args);
      entry.catch(() => cache.delete(key));
      cache.set(key, entry);
    }
    return entry;
  };
}
