/**
 * Rollouts in flight when nothing says otherwise (a search config's `concurrency`, `eval`, `probe` and `worker`'s
 * `--concurrency`, the library's `evaluate`). The same number bounds the model calls in flight per provider and base
 * URL (models/registry.ts): a rollout has one call in flight at a time, so the rollouts' calls never queue behind
 * each other, and a rate-limited server is eased by lowering this one setting. The one place this default is written.
 */
export const DEFAULT_CONCURRENCY = 8;

/**
 * Run `fn` over `items` with at most `concurrency` in flight; results in input order. The first error stops new
 * work from starting and is rethrown once the running calls settle.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}

/** Promise.all that waits for every promise before rethrowing, so no rollout still writes after the run stopped. */
export async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}
