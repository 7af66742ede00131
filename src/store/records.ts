/**
 * What the run store holds, as typed records (snake_case like the stored data). JSON columns come back parsed;
 * their shape belongs to the code that writes them (scoring, search), so they are plain JSON objects here.
 */

import type { Family, Kind, Split, SuiteName } from "../domain";
import type { EndReason, Trajectory } from "../harness";
import type { RoleUsage } from "../models";
import type { EpisodeScore, ObjectiveName, ProbeReport, ProbeReportInput, StoredSummary } from "../scoring";

export type JsonObject = Record<string, unknown>;

/** What the store is given to keep as a JSON column: any object (it is stored as canonical JSON). */
export type JsonInput = object;

/**
 * A rollout's scores as stored: checked against the episode score schema on read, and still readable field by field
 * as JSON (the report reads metrics by name).
 */
export type StoredScore = EpisodeScore & JsonObject;

/** `budget_exhausted`: stopped at a budget limit; `--resume` with a larger budget continues it. */
export type RunState = "running" | "finished" | "failed" | "budget_exhausted";

/**
 * What a run directory holds: a search (`hsearch run`), an evaluation of one harness (`hsearch eval`), or a probe's
 * episodes (`hsearch probe beliefs|challenge`). One store and one reader serve them all.
 */
export const RUN_KINDS = ["search", "eval", "probe_beliefs", "probe_challenge"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** A run of each kind, as messages name it ("… holds an evaluation (hsearch eval)"). */
export const RUN_KIND_LABEL: Record<RunKind, string> = {
  search: "a search run (hsearch run)",
  eval: "an evaluation (hsearch eval)",
  probe_beliefs: "a belief probe (hsearch probe beliefs)",
  probe_challenge: "a challenge probe (hsearch probe challenge)",
};

export type NewRun = {
  id: string;
  name: string;
  config: JsonInput;
  seed: number;
} & ({ kind?: "search"; objective: ObjectiveName } | { kind: Exclude<RunKind, "search">; objective?: null });

export interface RunRecord {
  id: string;
  /** search, or an evaluation's kind; a search has an objective, an evaluation none. */
  kind: RunKind;
  name: string;
  created_at: string;
  config: JsonObject;
  config_hash: string;
  seed: number;
  objective: ObjectiveName | null;
  state: RunState;
  ended_at: string | null;
  error: string | null;
  /** Milliseconds the run has been worked on, over all sessions (budget.max_minutes). */
  active_ms: number;
}

export const CANDIDATE_STATES = ["pending", "evaluated", "rejected", "skipped_duplicate", "invalid"] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];

export interface NewCandidate {
  commit: string;
  round: number;
  proposal: number;
  /** Null for the seed. */
  parent: string | null;
  branch: string;
  proposer: string;
  rationale: string;
  tree_hash: string;
}

export const VERDICTS = ["accepted", "rejected", "indecisive", "screened_out"] as const;
export type CandidateVerdict = (typeof VERDICTS)[number];

export interface CandidateRecord extends NewCandidate {
  state: CandidateState;
  /** The acceptance verdict of an evaluated proposal (null for the seed and for proposals never judged). */
  verdict: CandidateVerdict | null;
  rejected_reason: string | null;
  duplicate_of: string | null;
  /** The objective on the search split. */
  score: number | null;
  /**
   * Search-split summary only (never held-out data: the search view hands it to proposers); an evaluation
   * directory's summary of its episodes; a probe directory's report. Checked on read (rows.ts).
   */
  summary: StoredSummary | ProbeReport | null;
  created_at: string;
}

export interface CandidateOutcome {
  state: Exclude<CandidateState, "pending">;
  /** Kept as it was when not given. */
  verdict?: CandidateVerdict;
  score?: number | null;
  summary?: StoredSummary | ProbeReportInput | null;
  rejected_reason?: string | null;
  duplicate_of?: string | null;
}

export interface ProposalFailure {
  round: number;
  proposal: number;
  proposer: string;
  rationale: string;
  reason: string;
}

export interface RoundRecord {
  round: number;
  incumbent_before: string;
  incumbent_after: string | null;
  accepted_commit: string | null;
  /** Search-only data: the search view hands it to proposers. */
  decision: JsonObject | null;
  started_at: string;
  ended_at: string | null;
}

export interface RoundOutcome {
  incumbent_after: string;
  accepted_commit: string | null;
  decision: JsonInput;
}

export const PURPOSES = ["search", "heldout", "independent", "diagnostic"] as const;
export type Purpose = (typeof PURPOSES)[number];

/** A rollout to store: the columns are taken from the trajectory, so they cannot disagree with it. */
export interface NewRollout {
  /** From `rolloutKey` (src/core/ids.ts). */
  key: string;
  purpose: Purpose;
  split: Split;
  scores: EpisodeScore;
  trajectory: Trajectory;
}

export interface RolloutRecord {
  key: string;
  purpose: Purpose;
  candidate: string;
  task_id: string;
  split: Split;
  kind: Kind;
  family: Family | null;
  /** The task's suite, as its trajectory names it (a built-in suite or a plug-in's). */
  suite: SuiteName;
  model: string;
  seed: number;
  repeat: number;
  scores: StoredScore;
  reward: number | null;
  end_reason: EndReason;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  usd: number;
  model_calls: number;
  infra_error: string | null;
  trajectory_file: string;
  trajectory_offset: number;
  trajectory_length: number;
  trajectory_sha256: string;
  created_at: string;
  /** Every model call of the rollout was answered from the request cache: it cost nothing (Trajectory.from_cache). */
  from_cache: boolean;
}

export type EvaluationPurpose = Exclude<Purpose, "search">;

export interface EvaluationRecord {
  candidate: string;
  purpose: EvaluationPurpose;
  split: Exclude<Split, "search">;
  /** The round a diagnostic was taken in; null for the final evaluations. */
  round: number | null;
  summary: StoredSummary;
  created_at: string;
}

export type NewEvaluation = Omit<EvaluationRecord, "created_at">;

export interface NewModelCall {
  role: "proposer" | "judge" | "customer" | "probe" | (string & {});
  model: string;
  round?: number | null;
  /** When given, a second call with the same key is not counted again (a cached reply replayed on resume). */
  call_key?: string | null;
  input_tokens: number;
  output_tokens: number;
  usd: number;
}

/**
 * One role's usage of one model, summed over the run's sessions: the usage totals of models/usage.ts (`RoleUsage`:
 * billed and cached calls, tokens, cost or null when unpriced) with the role and model they belong to.
 */
export interface UsageTotal extends RoleUsage {
  /** agent, proposer, judge or customer. */
  role: string;
  model: string;
}

export interface EventRecord {
  id: number;
  at: string;
  kind: string;
  data: JsonObject;
}

export const PROBES = ["beliefs", "challenge"] as const;
export type Probe = (typeof PROBES)[number];

/** One probe episode to store: its trajectory and what the probe made of it (a belief row, a challenge row). */
export interface NewProbeEpisode {
  probe: Probe;
  key: string;
  split: Split;
  result: JsonInput;
  trajectory: Trajectory;
}

export interface ProbeEpisodeRecord {
  probe: Probe;
  key: string;
  candidate: string;
  task_id: string;
  split: Split;
  kind: Kind;
  family: Family | null;
  model: string;
  seed: number;
  repeat: number;
  result: JsonObject;
  trajectory_file: string;
  trajectory_offset: number;
  trajectory_length: number;
  trajectory_sha256: string;
  created_at: string;
}

export interface RecordedRollouts {
  inserted: number;
  /** Rollouts whose key was already stored (a resumed run re-recording them). */
  skipped: number;
}

/** A proposal of the search that was not accepted: what the proposer of a later round is told of it. */
export interface RejectedProposal {
  round: number;
  proposal: number;
  /** Null when the proposal never became a commit. */
  commit: string | null;
  proposer: string;
  rationale: string;
  outcome: "rejected" | "invalid" | "skipped_duplicate" | "failed";
  reason: string | null;
  score: number | null;
}
