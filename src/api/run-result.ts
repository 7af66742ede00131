import type { Comparison } from "../report/compare";
import { storedComparisons } from "../report/comparisons";
import type { RunReader } from "../store/run-reader";
import { type RunStatus, runStatus } from "../store/run-status";

/** The status with seed against the final harness by suite and family on every split, as `--json` prints it. */
export type StatusWithSuites = RunStatus & { suites: Comparison[] };

export function statusWithSuites(store: RunReader): StatusWithSuites {
  const status = runStatus(store);
  return { ...status, suites: suiteComparisons(store, status) };
}

/** Seed against the final harness per split, from the stored episodes. */
export function suiteComparisons(store: RunReader, status: RunStatus): Comparison[] {
  const seed = status.rounds[0]?.proposals[0]?.commit;
  const final = (status.selected ?? status.incumbent)?.commit;
  if (!seed || !final || seed === final) return [];
  return storedComparisons(store, seed, final);
}
