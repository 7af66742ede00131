/**
 * The read-only slice of a run that proposers and acceptance code may see (docs/DESIGN.md §7): candidates with their search
 * scores, rounds, search-purpose rollouts on the search split, their trajectories, and the memory of rejected
 * proposals. It holds no method that reaches held-out, independent or diagnostic data, and the database handle is
 * private, so code given a SearchView cannot read them.
 */

import { join } from "node:path";
import type Database from "better-sqlite3";
import { HsearchError } from "../core";
import type { Trajectory } from "../harness";
import type { ObjectiveName } from "../scoring";
import type { CandidateRecord, RejectedProposal, RolloutRecord, RoundRecord } from "./records";

export type { RejectedProposal };

import {
  type CandidateRow,
  type RecordSource,
  type RolloutRow,
  type RoundRow,
  toCandidate,
  toRollout,
  toRound,
} from "./rows";
import { runPaths } from "./run-dir";
import { readTrajectoryAt } from "./trajectory-log";

/** Every rollout query of the view carries this condition. */
const SEARCH_ONLY = "purpose = 'search' AND split = 'search'";

export interface SearchRunInfo {
  id: string;
  name: string;
  seed: number;
  objective: ObjectiveName;
}

export class SearchView {
  readonly #db: Database.Database;
  readonly #dir: string;
  readonly #source: RecordSource;

  /** Built by `RunStore.searchView()`. */
  /** @internal Made by the run store; the database type stays out of the package's declarations. */
  constructor(db: Database.Database, dir: string) {
    this.#db = db;
    this.#dir = dir;
    this.#source = { file: runPaths(dir).db };
  }

  run(): SearchRunInfo {
    const row = this.#db.prepare("SELECT id, name, seed, objective FROM run").get() as
      | SearchRunInfo
      | undefined;
    if (row === undefined) throw new HsearchError("not_found", `no run recorded in ${this.#dir}`);
    return row;
  }

  candidate(commit: string): CandidateRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM candidates WHERE commit_sha = ?").get(commit) as
      | CandidateRow
      | undefined;
    return row === undefined ? undefined : toCandidate(row, this.#source, "summary");
  }

  candidates(): CandidateRecord[] {
    const rows = this.#db
      .prepare("SELECT * FROM candidates ORDER BY round, proposal")
      .all() as CandidateRow[];
    return rows.map((row) => toCandidate(row, this.#source, "summary"));
  }

  /** Candidates with this tree hash: a proposal equal to one of them need not be evaluated again. */
  candidatesWithTree(treeHash: string): CandidateRecord[] {
    const rows = this.#db
      .prepare("SELECT * FROM candidates WHERE tree_hash = ? ORDER BY round, proposal")
      .all(treeHash) as CandidateRow[];
    return rows.map((row) => toCandidate(row, this.#source, "summary"));
  }

  rounds(): RoundRecord[] {
    return (this.#db.prepare("SELECT * FROM rounds ORDER BY round").all() as RoundRow[]).map((row) =>
      toRound(row, this.#source),
    );
  }

  /** The candidate's search rollouts, in task, seed, repeat order. */
  rollouts(commit: string): RolloutRecord[] {
    const rows = this.#db
      .prepare(
        `SELECT * FROM rollouts WHERE candidate_commit = ? AND ${SEARCH_ONLY} ORDER BY task_id, seed, repeat, key`,
      )
      .all(commit) as RolloutRow[];
    return rows.map((row) => toRollout(row, this.#source, (old) => this.#readAt(old.key, old).suite));
  }

  /** The trajectory of one search rollout; not_found for any other rollout. */
  trajectory(commit: string, key: string): Trajectory {
    const row = this.#db
      .prepare(`SELECT * FROM rollouts WHERE candidate_commit = ? AND key = ? AND ${SEARCH_ONLY}`)
      .get(commit, key) as RolloutRow | undefined;
    if (row === undefined)
      throw new HsearchError("not_found", `no search rollout ${key} of ${commit.slice(0, 12)}`);
    return this.#readAt(row.key, row);
  }

  #readAt(
    key: string,
    row: Pick<
      RolloutRow,
      "trajectory_file" | "trajectory_offset" | "trajectory_length" | "trajectory_sha256"
    >,
  ): Trajectory {
    return readTrajectoryAt(join(this.#dir, row.trajectory_file), key, {
      offset: row.trajectory_offset,
      length: row.trajectory_length,
      sha256: row.trajectory_sha256,
    });
  }

  /** Proposals that did not become the incumbent for a reason worth remembering, oldest first. */
  rejectedProposals(): RejectedProposal[] {
    return this.#db
      .prepare(
        `SELECT round, proposal, commit_sha AS 'commit', proposer, rationale, state AS outcome,
                rejected_reason AS reason, score
           FROM candidates WHERE state IN ('rejected', 'invalid', 'skipped_duplicate')
         UNION ALL
         SELECT round, proposal, NULL, proposer, rationale, 'failed', reason, NULL FROM proposal_failures
         ORDER BY round, proposal`,
      )
      .all() as RejectedProposal[];
  }
}
