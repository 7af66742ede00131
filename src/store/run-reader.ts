import type { Trajectory } from "../harness";
import type { LearntRejection } from "../models";
import type {
  CandidateRecord,
  EvaluationPurpose,
  EvaluationRecord,
  EventRecord,
  ProposalFailure,
  Purpose,
  RolloutRecord,
  RoundRecord,
  RunRecord,
  UsageTotal,
} from "./records";
import type { RunPaths } from "./run-dir";

/**
 * What the read-only views of a run (status, report, viewer) read. `RunStore` is one; the viewer's in-memory model
 * of a run (src/report/viewer/run-model.ts) is another, kept up to date from the store's changes, so the same
 * status and report code renders both.
 */
export interface RunReader {
  readonly paths: RunPaths;
  getRun(): RunRecord | undefined;
  listCandidates(): CandidateRecord[];
  getCandidate(commit: string): CandidateRecord | undefined;
  listRounds(): RoundRecord[];
  getRound(round: number): RoundRecord | undefined;
  /** Proposals that never became a commit, by round and proposal. */
  listProposalFailures(): ProposalFailure[];
  /** A candidate's rollouts, by purpose, task, seed, repeat and key. */
  listRollouts(commit: string, purpose?: Purpose): RolloutRecord[];
  getRollout(purpose: Purpose, key: string): RolloutRecord | undefined;
  countRollouts(purpose?: Purpose): number;
  /** Of those, the rollouts the request cache answered whole (free: `max_rollouts` counts the others). */
  countCachedRollouts(purpose?: Purpose): number;
  listEvaluations(): EvaluationRecord[];
  getEvaluation(commit: string, purpose: EvaluationPurpose, split: string): EvaluationRecord | undefined;
  listEvents(options?: { afterId?: number; limit?: number }): EventRecord[];
  usageTotals(): UsageTotal[];
  rejectedParameters(): LearntRejection[];
  readTrajectory(rollout: RolloutRecord): Trajectory;
}
