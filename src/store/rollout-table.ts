/**
 * Rollout rows and their trajectory lines. The ordering that makes resume safe lives here: skip keys already
 * stored, append and fsync the new trajectories, then insert every row of the batch in one transaction.
 */

import { join } from "node:path";
import { HsearchError, resolveInside } from "../core";
import type { Trajectory } from "../harness";
import type { NewRollout, Purpose, RecordedRollouts, RolloutRecord } from "./records";
import { assertStorableRollout, rolloutRow } from "./rollout-columns";
import { type RolloutRow, toRollout } from "./rows";
import { trajectoryFile } from "./run-dir";
import type { StoreContext } from "./store-context";
import {
  appendTrajectoryLines,
  type LinePointer,
  readTrajectoryAt,
  readTrajectoryLog,
  type TrajectoryEntry,
} from "./trajectory-log";

export function hasRollout(ctx: StoreContext, purpose: Purpose, key: string): boolean {
  return (
    ctx.db.prepare("SELECT 1 FROM rollouts WHERE purpose = ? AND key = ?").get(purpose, key) !== undefined
  );
}

/** A stored rollout that met an infrastructure error may be replaced by a retry; a scored one stands. */
function hasScoredRollout(ctx: StoreContext, purpose: Purpose, key: string): boolean {
  return (
    ctx.db
      .prepare("SELECT 1 FROM rollouts WHERE purpose = ? AND key = ? AND infra_error IS NULL")
      .get(purpose, key) !== undefined
  );
}

/** Keys already stored for a candidate and purpose: what a resumed run can skip. */
export function rolloutKeys(ctx: StoreContext, commit: string, purpose: Purpose): Set<string> {
  const rows = ctx.db
    .prepare("SELECT key FROM rollouts WHERE candidate_commit = ? AND purpose = ?")
    .all(commit, purpose) as Array<{ key: string }>;
  return new Set(rows.map((row) => row.key));
}

/**
 * Appends trajectory lines to the candidate's file for `purpose` (fsynced). `recordRollouts` calls it; on its
 * own it only writes lines no row points at, which readers tolerate.
 */
export function appendTrajectories(
  ctx: StoreContext,
  commit: string,
  purpose: Purpose,
  entries: TrajectoryEntry[],
): LinePointer[] {
  return appendTrajectoryLines(join(ctx.dir, trajectoryFile(commit, purpose)), entries);
}

/**
 * Stores one candidate's batch of rollouts. Keys already stored are skipped (resume), except infrastructure errors,
 * which a retry replaces; the new trajectories are appended and fsynced first (a later line of a key wins), then
 * every row is inserted in one transaction.
 */
export function recordRollouts(ctx: StoreContext, commit: string, rollouts: NewRollout[]): RecordedRollouts {
  const seen = new Set<string>();
  const fresh: NewRollout[] = [];
  for (const rollout of rollouts) {
    const id = `${rollout.purpose}/${rollout.key}`;
    if (seen.has(id)) throw new HsearchError("bad_input", `rollout ${id} appears twice in one batch`);
    seen.add(id);
    assertStorableRollout(rollout);
    if (!hasScoredRollout(ctx, rollout.purpose, rollout.key)) fresh.push(rollout);
  }
  const rows: unknown[][] = [];
  for (const purpose of new Set(fresh.map((rollout) => rollout.purpose))) {
    const group = fresh.filter((rollout) => rollout.purpose === purpose);
    const file = trajectoryFile(commit, purpose);
    const pointers = appendTrajectories(
      ctx,
      commit,
      purpose,
      group.map((rollout) => ({ key: rollout.key, trajectory: rollout.trajectory })),
    );
    group.forEach((rollout, index) => {
      rows.push(rolloutRow(commit, rollout, file, pointers[index] as LinePointer, ctx.now()));
    });
  }
  const insert = ctx.db.prepare(
    `INSERT OR IGNORE INTO rollouts (key, purpose, candidate_commit, task_id, split, kind, family, model, seed,
       repeat, scores_json, reward, end_reason, steps, input_tokens, output_tokens, usd, model_calls, infra_error,
       trajectory_file, trajectory_offset, trajectory_length, trajectory_sha256, created_at, from_cache, suite)
     VALUES (${Array(26).fill("?").join(", ")})`,
  );
  const replaced = ctx.db.prepare(
    "DELETE FROM rollouts WHERE purpose = ? AND key = ? AND infra_error IS NOT NULL",
  );
  const inserted = ctx.db.transaction(() => {
    for (const rollout of fresh) replaced.run(rollout.purpose, rollout.key);
    return rows.reduce<number>((sum, row) => sum + insert.run(...row).changes, 0);
  })();
  return { inserted, skipped: rollouts.length - inserted };
}

/** A row stored before rollouts had a suite column: its trajectory line names the suite. */
const suiteFromTrajectory = (ctx: StoreContext) => (rollout: Omit<RolloutRecord, "suite">) =>
  readTrajectory(ctx, rollout).suite;

export function listRollouts(ctx: StoreContext, commit: string, purpose?: Purpose): RolloutRecord[] {
  const order = "ORDER BY purpose, task_id, seed, repeat, key";
  const rows = (
    purpose === undefined
      ? ctx.db.prepare(`SELECT * FROM rollouts WHERE candidate_commit = ? ${order}`).all(commit)
      : ctx.db
          .prepare(`SELECT * FROM rollouts WHERE candidate_commit = ? AND purpose = ? ${order}`)
          .all(commit, purpose)
  ) as RolloutRow[];
  return rows.map((row) => toRollout(row, ctx, suiteFromTrajectory(ctx)));
}

export function listRolloutsAfter(
  ctx: StoreContext,
  afterRowid: number,
): Array<{ rowid: number; rollout: RolloutRecord }> {
  const rows = ctx.db
    .prepare("SELECT rowid AS row_id, * FROM rollouts WHERE rowid > ? ORDER BY rowid")
    .all(afterRowid) as Array<RolloutRow & { row_id: number }>;
  return rows.map(({ row_id, ...row }) => ({
    rowid: row_id,
    rollout: toRollout(row, ctx, suiteFromTrajectory(ctx)),
  }));
}

export function getRollout(ctx: StoreContext, purpose: Purpose, key: string): RolloutRecord | undefined {
  const row = ctx.db.prepare("SELECT * FROM rollouts WHERE purpose = ? AND key = ?").get(purpose, key) as
    | RolloutRow
    | undefined;
  return row === undefined ? undefined : toRollout(row, ctx, suiteFromTrajectory(ctx));
}

/** The stored trajectory of a rollout, checked against the hash in its row. */
export function readTrajectory(
  ctx: StoreContext,
  rollout: Pick<
    RolloutRecord,
    "key" | "trajectory_file" | "trajectory_offset" | "trajectory_length" | "trajectory_sha256"
  >,
): Trajectory {
  // The file name comes from run.db: a damaged or crafted row must not make the viewer read outside the run.
  return readTrajectoryAt(resolveInside(ctx.dir, rollout.trajectory_file, "trajectory file"), rollout.key, {
    offset: rollout.trajectory_offset,
    length: rollout.trajectory_length,
    sha256: rollout.trajectory_sha256,
  });
}

/** Every trajectory in a candidate's file for `purpose`, deduplicated by key (last line wins). */
export function readCandidateLog(
  ctx: StoreContext,
  commit: string,
  purpose: Purpose,
): Map<string, Trajectory> {
  return readTrajectoryLog(resolveInside(ctx.dir, trajectoryFile(commit, purpose), "trajectory file"));
}

export function countRollouts(ctx: StoreContext, purpose?: Purpose): number {
  return countWhere(ctx, [], purpose);
}

/** Of those, the rollouts whose every model call the request cache answered (free; not counted by max_rollouts). */
export function countCachedRollouts(ctx: StoreContext, purpose?: Purpose): number {
  return countWhere(ctx, ["from_cache = 1"], purpose);
}

/** The rollouts meeting every condition, of one purpose or of all. */
function countWhere(ctx: StoreContext, conditions: readonly string[], purpose: Purpose | undefined): number {
  const where = purpose === undefined ? conditions : [...conditions, "purpose = ?"];
  const filter = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
  const row = ctx.db
    .prepare(`SELECT COUNT(*) AS n FROM rollouts${filter}`)
    .get(...(purpose === undefined ? [] : [purpose])) as { n: number };
  return row.n;
}
