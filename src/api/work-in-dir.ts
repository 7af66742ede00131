/**
 * Work that runs in a run's or an evaluation's directory (a search, an evaluation, a probe): it holds the
 * directory's lock, and a stop on an error is recorded there.
 */
import { isPluginHookError } from "../core";
import { acquireRunLock, type RunStore } from "../store";

/** The directory's lock, released by the function returned; the store is closed when the lock cannot be had. */
export function lockDir(store: RunStore, dir: string): () => void {
  try {
    return acquireRunLock(dir);
  } catch (error) {
    store.close();
    throw error;
  }
}

/**
 * Records that the work stopped on `error`: the run failed, and, when the error is in a researcher's module, which
 * module and hook (a resume may import that module changed, once, to go on from here). Returns those for the caller
 * to say how to go on; null for any other error.
 */
export function recordFailure(store: RunStore, error: unknown): { module: string; hook: string } | null {
  store.setRunState("failed", error instanceof Error ? error.message : String(error));
  if (!isPluginHookError(error)) return null;
  store.logEvent({
    kind: "plugin_hook_failed",
    data: { module: error.module, hook: error.hook, message: error.message },
  });
  return { module: error.module, hook: error.hook };
}
