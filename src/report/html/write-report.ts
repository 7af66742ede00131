import { renameSync, writeFileSync } from "node:fs";
import { openRunStore, type RunStore } from "../../store";
import { loadStoredEvaluation } from "../model/eval-data";
import { loadReportData } from "../model/report-data";
import { episodeOutcome, renderEvaluationPage } from "./eval-page";
import { loadStoredProbe, renderProbePage } from "./probe-page";
import { renderReport } from "./render-report";

/**
 * Writes the report of the run in `runDir` to `file` (default `<runDir>/report.html`) and returns the path. The
 * run database is opened read-only, so this is safe beside a running search; the file is replaced atomically.
 */
export async function writeReport(runDir: string, file?: string, now?: Date): Promise<string> {
  const store = openRunStore(runDir, { readonly: true });
  let document: string;
  try {
    const kind = store.getRun()?.kind;
    const generatedAt = (now ?? new Date()).toISOString();
    document =
      kind === "eval"
        ? evaluationReport(store, generatedAt)
        : kind === "probe_beliefs" || kind === "probe_challenge"
          ? renderProbePage(loadStoredProbe(store), { events: store.listEvents(), generatedAt })
          : renderReport(await loadReportData(store, { now }));
  } finally {
    store.close();
  }
  const target = file ?? store.paths.report;
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, document);
    renameSync(temporary, target);
  } catch (error) {
    // The user named the report, not its temporary sibling: a failure (a missing or non-directory parent) names it.
    if (error instanceof Error && "path" in error) error.path = target;
    throw error;
  }
  return target;
}

/** Failed episodes a report shows inline with their verifier output and timeline (the viewer has every one). */
const REPORTED_FAILURES = 40;

/** An evaluation as one self-contained page: the tables, every episode, and the first failures in full. */
function evaluationReport(store: RunStore, generatedAt: string): string {
  const stored = loadStoredEvaluation(store);
  const failures = stored.rollouts
    .filter((rollout) => episodeOutcome(rollout) !== "passed")
    .slice(0, REPORTED_FAILURES)
    .map((rollout) => ({ rollout, trajectory: store.readTrajectory(rollout) }));
  return renderEvaluationPage(stored, {
    usage: stored.usage,
    failures,
    events: store.listEvents(),
    generatedAt,
  });
}
