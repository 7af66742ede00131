import type { Comparison } from "../report";
import { type RunMetricTable, runMetricModules, runMetricTable, storedComparisons } from "../report";
import type { RunMetricModules } from "../search/types";
import { runStatus } from "../store";
import type { RunReader, RunStatus } from "../store/types";

/**
 * The status with seed against the final harness by suite and family on every split, as `--json` prints it, and
 * the run's own metrics (its config's metric modules) when it names any.
 */
export type StatusWithSuites = RunStatus & { suites: Comparison[]; metrics?: RunMetricTable };

/** `metrics`: the run's metric modules as imported (runMetricModules); without them no metric table is made. */
export function statusWithSuites(store: RunReader, metrics?: RunMetricModules): StatusWithSuites {
  const status = runStatus(store);
  const table = metrics ? runMetricTable(store, status, metrics) : null;
  return { ...status, suites: suiteComparisons(store, status), ...(table ? { metrics: table } : {}) };
}

/** statusWithSuites with the run's metric modules imported again from its stored config. */
export async function statusWithMetrics(store: RunReader): Promise<StatusWithSuites> {
  return statusWithSuites(store, await runMetricModules(store));
}

/** Seed against the final harness per split, from the stored episodes. */
export function suiteComparisons(store: RunReader, status: RunStatus): Comparison[] {
  const seed = status.rounds[0]?.proposals[0]?.commit;
  const final = (status.selected ?? status.incumbent)?.commit;
  if (!seed || !final || seed === final) return [];
  return storedComparisons(store, seed, final);
}
