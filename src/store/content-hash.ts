import { hashJson } from "../core";
import { ROLLOUT_CONTENT_COLUMNS } from "./rollout-columns";
import type { StoreContext } from "./store-context";

/**
 * A hash of the run's results: run, candidates, proposal failures, rounds, rollouts and probe episodes (with their
 * trajectory hashes) and evaluations, leaving out timestamps, byte offsets, events and model-call logs. A resumed run and an
 * uninterrupted one with the same config have the same content hash.
 */
export function contentHash(ctx: StoreContext): string {
  const all = (sql: string) => ctx.db.prepare(sql).all();
  return hashJson({
    run: all("SELECT id, kind, name, config_hash, seed, objective, state, error FROM run"),
    candidates: all(
      `SELECT commit_sha, round, proposal, parent_commit, branch, proposer, rationale, tree_hash, state,
              rejected_reason, duplicate_of, score, summary_json FROM candidates ORDER BY commit_sha`,
    ),
    proposal_failures: all(
      "SELECT round, proposal, proposer, rationale, reason FROM proposal_failures ORDER BY round, proposal",
    ),
    rounds: all(
      "SELECT round, incumbent_before, incumbent_after, accepted_commit, decision_json FROM rounds ORDER BY round",
    ),
    rollouts: all(`SELECT ${ROLLOUT_CONTENT_COLUMNS.join(", ")} FROM rollouts ORDER BY purpose, key`),
    probe_episodes: all(
      `SELECT probe, key, candidate_commit, task_id, split, kind, family, model, seed, repeat, result_json,
              trajectory_file, trajectory_sha256 FROM probe_episodes ORDER BY probe, key`,
    ),
    evaluations: all(
      `SELECT candidate_commit, purpose, split, round, summary_json FROM evaluations
       ORDER BY candidate_commit, purpose, split`,
    ),
  });
}
