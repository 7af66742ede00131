import { existsSync } from "node:fs";
import { join } from "node:path";
import { HsearchError } from "../core";
import type { BeliefSummary, BeliefTaskRow, ChallengeProbeResult } from "../probes";
import { openRunStore, type RunStatus, type RunStore, runStatus } from "../store";
import type { CandidateRecord, RolloutRecord } from "../store/types";
import type { StudyStep } from "./plan";

/**
 * What a finished step left in its directory, read back (read-only) for the report: the report is built from these
 * alone, so a resumed study ends with the same report as an uninterrupted one.
 */
export type StepResult =
  | { kind: "eval"; rollouts: RolloutRecord[] }
  | {
      kind: "search";
      status: RunStatus;
      candidates: CandidateRecord[];
      /** Each candidate's search-split rollouts by commit. */
      rollouts: Map<string, RolloutRecord[]>;
    }
  | { kind: "beliefs"; report: BeliefSummary & { tasks: BeliefTaskRow[] } }
  | { kind: "challenge"; report: ChallengeProbeResult };

/** Where a step keeps its run, evaluation or probe directory. */
export function stepDir(studyDir: string, step: Pick<StudyStep, "id">): string {
  return join(studyDir, step.id);
}

/** Where the harness a search selected is exported (the held-out evaluations and probes read it there). */
export function selectedHarnessDir(studyDir: string, searchStep: string): string {
  return join(studyDir, searchStep.replace(/\/search-/, "/harness-"));
}

/** The state a step's directory records: null when it holds no run yet (never started, or killed while made). */
export function storedState(dir: string): string | null {
  if (!existsSync(join(dir, "run.db"))) return null;
  let store: RunStore;
  try {
    store = openRunStore(dir, { readonly: true });
  } catch {
    return null;
  }
  try {
    return store.getRun()?.state ?? null;
  } finally {
    store.close();
  }
}

export function readStepResult(studyDir: string, step: StudyStep): StepResult {
  const dir = stepDir(studyDir, step);
  const store = openRunStore(dir, { readonly: true });
  try {
    const run = store.getRun();
    if (run?.state !== "finished")
      throw new HsearchError("not_found", `the study's step ${step.id} has not finished`, { file: dir });
    const { spec } = step;
    if (spec.kind === "search") {
      const candidates = store.listCandidates();
      const rollouts = new Map(candidates.map((c) => [c.commit, store.listRollouts(c.commit, "search")]));
      return { kind: "search", status: runStatus(store), candidates, rollouts };
    }
    const [evaluated] = store.listCandidates();
    if (!evaluated) throw new HsearchError("not_found", `no harness recorded in ${dir}`, { file: dir });
    if (spec.kind === "eval") return { kind: "eval", rollouts: store.listRollouts(evaluated.commit) };
    const summary = evaluated.summary as unknown;
    if (spec.kind === "beliefs")
      return { kind: "beliefs", report: summary as BeliefSummary & { tasks: BeliefTaskRow[] } };
    return { kind: "challenge", report: summary as ChallengeProbeResult };
  } finally {
    store.close();
  }
}
