import { join } from "node:path";
import { HsearchError } from "../core/errors";
import { resolveCommit, SELECTED_TAG } from "../git";
import type { Trajectory } from "../harness/trajectory";
import type { Comparison } from "../report/compare";
import { storedComparisons } from "../report/comparisons";
import type { SearchConfig } from "../search/config-schema";
import {
  type CandidateRecord,
  type EvaluationRecord,
  type EventRecord,
  openRunStore,
  type Purpose,
  type RolloutRecord,
  type RoundRecord,
  type RunRecord,
  type RunStore,
  type UsageTotal,
} from "../store";
import { locateRun, storedConfig } from "./locate-run";
import { type StatusWithSuites, statusWithSuites } from "./run-result";

/**
 * A run or evaluation directory opened read-only (nothing is written, not even a migration): typed records of what it
 * holds. Close it when done.
 */
export interface RunReader {
  readonly dir: string;
  readonly run: RunRecord;
  /** The search config as stored (validated); bad_input on an evaluation directory, which has none. */
  config(): SearchConfig;
  /** What `hsearch status --json` prints. */
  status(): StatusWithSuites;
  candidates(filter?: { round?: number }): CandidateRecord[];
  /** A candidate by name: `selected`, `seed`, a full commit or a unique prefix of four or more hex digits. */
  candidate(name: string): Promise<CandidateRecord>;
  rounds(): RoundRecord[];
  rollouts(commit: string, purpose?: Purpose): RolloutRecord[];
  trajectory(rollout: RolloutRecord): Trajectory;
  /** The summaries of held-out, independent and diagnostic evaluations. */
  evaluations(): EvaluationRecord[];
  usage(): UsageTotal[];
  /** Two candidates' stored episodes compared per suite and family on each split, with the tasks that flipped. */
  comparisons(from: string, to: string): Comparison[];
  events(options?: { afterId?: number; limit?: number }): EventRecord[];
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

function readerOf(store: RunStore, run: RunRecord): RunReader {
  return {
    dir: store.paths.dir,
    run,
    config: () => storedConfig(store),
    status: () => statusWithSuites(store),
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

/** `selected` (the run's tag), `seed` (round 0), or a commit prefix that names one candidate. */
export async function findCandidate(store: RunStore, name: string): Promise<CandidateRecord> {
  const candidates = store.listCandidates();
  if (name === "seed") {
    const seed = candidates.find((c) => c.parent === null);
    if (seed) return seed;
  } else if (name === "selected") {
    let commit: string;
    try {
      commit = await resolveCommit(join(store.paths.dir, "harness"), SELECTED_TAG);
    } catch (error) {
      throw new HsearchError("not_found", "the run has no selected harness yet (it has not finished)", {
        field: "candidate",
        cause: error,
      });
    }
    const selected = store.getCandidate(commit);
    if (selected) return selected;
  } else {
    const matches = /^[0-9a-f]{4,64}$/.test(name) ? candidates.filter((c) => c.commit.startsWith(name)) : [];
    if (matches.length === 1) return matches[0] as CandidateRecord;
    if (matches.length > 1)
      throw new HsearchError("not_found", `${name} matches ${matches.length} candidates; give more digits`, {
        field: "candidate",
      });
  }
  throw new HsearchError("not_found", `no candidate '${name}' in run ${store.paths.dir}`, {
    field: "candidate",
  });
}
