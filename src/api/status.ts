import type { EvalReport } from "../report";
import { loadStoredEvaluation, loadStoredProbe } from "../report";
import { openRunStore, type RunStore } from "../store";
import type { RunRecord } from "../store/types";
import { locateRun, storedConfig } from "./locate-run";
import type { BeliefsReport, ChallengeReport } from "./probe";
import { type StatusWithSuites, statusWithMetrics } from "./run-result";

/** Where an evaluation or a probe stands: stored of planned episodes, and its directory. */
export interface StoredProgress {
  id: string;
  kind: RunRecord["kind"];
  state: RunRecord["state"];
  error: string | null;
  directory: string;
  episodes_planned: number;
  episodes_stored: number;
}

/** What `hsearch status` reads: a search's rounds, an evaluation's tables, or a probe's report. */
export type RunStatusReport =
  | { kind: "search"; status: StatusWithSuites }
  | {
      kind: "eval";
      evaluation: StoredProgress & { created_at: string; ended_at: string | null };
      /** Over the episodes stored so far while the evaluation is not finished. */
      report: EvalReport;
    }
  | {
      kind: "probe";
      probe: StoredProgress;
      name: "beliefs" | "challenge";
      /** Null until the probe has finished. */
      report: BeliefsReport | ChallengeReport | null;
    };

/**
 * The status of a run, an evaluation or a probe (`hsearch status`). A search's stored config is checked, and its
 * own metric modules imported again for their table.
 */
export async function readRunStatus(target: string, options: { cwd: string }): Promise<RunStatusReport> {
  const store = openRunStore(locateRun(target, options.cwd), { readonly: true });
  try {
    const kind = store.getRun()?.kind;
    if (kind !== undefined && kind !== "search") return evaluationStatus(store);
    storedConfig(store);
    return { kind: "search", status: await statusWithMetrics(store) };
  } finally {
    store.close();
  }
}

function evaluationStatus(store: RunStore): RunStatusReport {
  const run = store.getRun() as RunRecord;
  if (run.kind === "eval") {
    const stored = loadStoredEvaluation(store);
    return {
      kind: "eval",
      evaluation: progressOf(run, store.paths.dir, stored, {
        created_at: run.created_at,
        ended_at: run.ended_at,
      }),
      report: stored.report,
    };
  }
  const probe = loadStoredProbe(store);
  return {
    kind: "probe",
    probe: progressOf(run, store.paths.dir, { planned: probe.planned, stored: probe.episodes.length }, {}),
    name: probe.probe,
    report: probe.report as unknown as BeliefsReport | ChallengeReport | null,
  };
}

/** An evaluation's or a probe's progress, its fields in the order `status --json` prints them (`times` before the counts). */
function progressOf<T extends object>(
  run: RunRecord,
  directory: string,
  episodes: { planned: number; stored: number },
  times: T,
): StoredProgress & T {
  return {
    id: run.id,
    kind: run.kind,
    state: run.state,
    error: run.error,
    directory,
    ...times,
    episodes_planned: episodes.planned,
    episodes_stored: episodes.stored,
  };
}
