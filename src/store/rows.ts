/** Raw SQLite rows and their mapping to records: JSON columns parsed, commit column names shortened. */
import type {
  CandidateRecord,
  EvaluationRecord,
  EventRecord,
  JsonObject,
  RolloutRecord,
  RoundRecord,
  RunRecord,
} from "./records";

export function parseJson(text: string): JsonObject;
export function parseJson(text: string | null): JsonObject | null;
export function parseJson(text: string | null): JsonObject | null {
  return text === null ? null : (JSON.parse(text) as JsonObject);
}

export type RunRow = Omit<RunRecord, "config"> & { config_json: string };

export function toRun({ config_json, ...row }: RunRow): RunRecord {
  return { ...row, config: parseJson(config_json) };
}

export type CandidateRow = Omit<CandidateRecord, "commit" | "parent" | "summary"> & {
  commit_sha: string;
  parent_commit: string | null;
  summary_json: string | null;
};

export function toCandidate({
  commit_sha,
  parent_commit,
  summary_json,
  ...row
}: CandidateRow): CandidateRecord {
  return { commit: commit_sha, parent: parent_commit, ...row, summary: parseJson(summary_json) };
}

export type RoundRow = Omit<RoundRecord, "decision"> & { decision_json: string | null };

export function toRound({ decision_json, ...row }: RoundRow): RoundRecord {
  return { ...row, decision: parseJson(decision_json) };
}

export type RolloutRow = Omit<RolloutRecord, "candidate" | "scores"> & {
  candidate_commit: string;
  scores_json: string;
};

export function toRollout({ candidate_commit, scores_json, ...row }: RolloutRow): RolloutRecord {
  return { ...row, candidate: candidate_commit, scores: parseJson(scores_json) };
}

export type EvaluationRow = Omit<EvaluationRecord, "candidate" | "summary"> & {
  candidate_commit: string;
  summary_json: string;
};

export function toEvaluation({ candidate_commit, summary_json, ...row }: EvaluationRow): EvaluationRecord {
  return { candidate: candidate_commit, ...row, summary: parseJson(summary_json) };
}

export type EventRow = Omit<EventRecord, "data"> & { json: string };

export function toEvent({ json, ...row }: EventRow): EventRecord {
  return { ...row, data: parseJson(json) };
}
