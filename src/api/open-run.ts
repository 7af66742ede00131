import { HsearchError } from "../core";
import type { Trajectory } from "../harness";
import type { Comparison } from "../report";
import { storedComparisons } from "../report";
import type { SearchConfig } from "../search/types";
import { openRunStore, type RunStore, resolveCandidate } from "../store";
// The records a reader hands out; the package entry lists them for its users.
import type * as stored from "../store/types";
import { locateRun, storedConfig } from "./locate-run";
import { type StatusWithSuites, statusWithMetrics, statusWithSuites } from "./run-result";

/**
 * A run or evaluation directory opened read-only (nothing is written, not even a migration): typed records of what it
 * holds. Close it when done.
 */
export interface RunReader {
  readonly dir: string;
  readonly run: stored.RunRecord;
  /** The search config as stored (validated); bad_input on an evaluation directory, which has none. */
  config(): SearchConfig;
  /** What `hsearch status --json` prints, but for its `metrics`: those need the run's metric modules imported. */
  status(): StatusWithSuites;
  /** The status with the table of the run's own metrics (its config's `metrics` modules, imported again). */
  statusWithMetrics(): Promise<StatusWithSuites>;
  candidates(filter?: { round?: number }): stored.CandidateRecord[];
  /** A candidate by name: `selected`, `seed`, a full commit or a unique prefix of four or more hex digits. */
  candidate(name: string): Promise<stored.CandidateRecord>;
  rounds(): stored.RoundRecord[];
  rollouts(commit: string, purpose?: stored.Purpose): stored.RolloutRecord[];
  trajectory(rollout: stored.RolloutRecord): Trajectory;
  /** The summaries of held-out, independent and diagnostic evaluations. */
  evaluations(): stored.EvaluationRecord[];
  usage(): stored.UsageTotal[];
  /** Two candidates' stored episodes compared per suite and family on each split, with the tasks that flipped. */
  comparisons(from: string, to: string): Comparison[];
  events(options?: { afterId?: number; limit?: number }): stored.EventRecord[];
  close(): void;
}

/** Opens the run at `dir` (or a run id under `cwd`/runs) for reading. */
export function openRun(dir: string, options: { cwd?: string } = {}): RunReader {
  const store = openRunStore(locateRun(dir, options.cwd ?? process.cwd()), { readonly: true });
  const run = store.getRun();
  if (!run) {
    store.close();
    throw new HsearchError("not_found", `no run recorded in ${store.paths.dir}`, { file: store.paths.db });
  }
  return readerOf(store, run);
}

function readerOf(store: RunStore, run: stored.RunRecord): RunReader {
  return {
    dir: store.paths.dir,
    run,
    config: () => storedConfig(store),
    status: () => statusWithSuites(store),
    statusWithMetrics: () => statusWithMetrics(store),
    candidates: (filter) => store.listCandidates(filter),
    candidate: (name) => findCandidate(store, name),
    rounds: () => store.listRounds(),
    rollouts: (commit, purpose) => store.listRollouts(commit, purpose),
    trajectory: (rollout) => store.readTrajectory(rollout),
    evaluations: () => store.listEvaluations(),
    usage: () => store.usageTotals(),
    comparisons: (from, to) => storedComparisons(store, from, to),
    events: (options) => store.listEvents(options),
    close: () => store.close(),
  };
}

/**
 * A candidate by any of its names — `seed`, `incumbent`, `selected`, `r4p1`, a commit prefix — through the resolver
 * every command uses; an unknown or ambiguous name is not_found listing the valid names.
 */
async function findCandidate(store: RunStore, name: string): Promise<stored.CandidateRecord> {
  return resolveCandidate(store, name, { field: "candidate" });
}
