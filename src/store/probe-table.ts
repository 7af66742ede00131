/**
 * Probe episodes (`hsearch probe beliefs|challenge`) and their trajectory lines, with the ordering that makes a
 * resume safe, as for rollouts (rollout-table.ts): skip keys already stored, append and fsync the new trajectories,
 * then insert the rows of the batch in one transaction.
 */
import { join } from "node:path";
import { badInput, canonicalJson, HsearchError, resolveInside } from "../core";
import { SPLITS } from "../domain";
import type { Trajectory } from "../harness";
import {
  type NewProbeEpisode,
  PROBES,
  type Probe,
  type ProbeEpisodeRecord,
  type RecordedRollouts,
} from "./records";
import { type ProbeEpisodeRow, toProbeEpisode } from "./rows";
import { probeTrajectoryFile } from "./run-dir";
import type { StoreContext } from "./store-context";
import { appendTrajectoryLines, type LinePointer, readTrajectoryAt } from "./trajectory-log";

function assertStorable(episode: NewProbeEpisode): void {
  const where = { field: `probe episode ${episode.key}` };
  if (typeof episode.key !== "string" || episode.key.length === 0)
    throw badInput("a probe episode needs a key", where);
  if (!(PROBES as readonly string[]).includes(episode.probe))
    throw badInput(`unknown probe '${episode.probe}'`, where);
  if (!(SPLITS as readonly string[]).includes(episode.split))
    throw badInput(`unknown split '${episode.split}'`, where);
  const trajectory = episode.trajectory as Partial<Trajectory> | undefined;
  if (typeof trajectory?.task_id !== "string" || trajectory.end === undefined)
    throw badInput("the probe episode's trajectory lacks task_id or end", where);
}

export function recordProbeEpisodes(
  ctx: StoreContext,
  commit: string,
  episodes: NewProbeEpisode[],
): RecordedRollouts {
  const seen = new Set<string>();
  for (const episode of episodes) {
    const id = `${episode.probe}/${episode.key}`;
    if (seen.has(id)) throw new HsearchError("bad_input", `probe episode ${id} appears twice in one batch`);
    seen.add(id);
    assertStorable(episode);
  }
  const known = ctx.db.prepare("SELECT 1 FROM probe_episodes WHERE probe = ? AND key = ?");
  const fresh = episodes.filter((episode) => known.get(episode.probe, episode.key) === undefined);
  const rows: unknown[][] = [];
  for (const probe of new Set(fresh.map((episode) => episode.probe))) {
    const group = fresh.filter((episode) => episode.probe === probe);
    const file = probeTrajectoryFile(commit, probe);
    const pointers = appendTrajectoryLines(
      join(ctx.dir, file),
      group.map((episode) => ({ key: episode.key, trajectory: episode.trajectory })),
    );
    group.forEach((episode, index) => {
      const pointer = pointers[index] as LinePointer;
      const { trajectory } = episode;
      rows.push([
        episode.probe,
        episode.key,
        commit,
        trajectory.task_id,
        episode.split,
        trajectory.kind,
        trajectory.family ?? null,
        trajectory.model,
        trajectory.seed,
        trajectory.repeat,
        canonicalJson(episode.result),
        file,
        pointer.offset,
        pointer.length,
        pointer.sha256,
        ctx.now(),
      ]);
    });
  }
  const insert = ctx.db.prepare(
    `INSERT OR IGNORE INTO probe_episodes (probe, key, candidate_commit, task_id, split, kind, family, model, seed,
       repeat, result_json, trajectory_file, trajectory_offset, trajectory_length, trajectory_sha256, created_at)
     VALUES (${Array(16).fill("?").join(", ")})`,
  );
  const inserted = ctx.db.transaction(() =>
    rows.reduce<number>((sum, row) => sum + insert.run(...row).changes, 0),
  )();
  return { inserted, skipped: episodes.length - inserted };
}

export function listProbeEpisodes(ctx: StoreContext, commit?: string, probe?: Probe): ProbeEpisodeRecord[] {
  const where: string[] = [];
  const params: string[] = [];
  if (commit !== undefined) {
    where.push("candidate_commit = ?");
    params.push(commit);
  }
  if (probe !== undefined) {
    where.push("probe = ?");
    params.push(probe);
  }
  const rows = ctx.db
    .prepare(
      `SELECT * FROM probe_episodes ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY probe, candidate_commit, task_id, repeat, key`,
    )
    .all(...params) as ProbeEpisodeRow[];
  return rows.map((row) => toProbeEpisode(row, ctx));
}

export function getProbeEpisode(
  ctx: StoreContext,
  probe: Probe,
  key: string,
): ProbeEpisodeRecord | undefined {
  const row = ctx.db.prepare("SELECT * FROM probe_episodes WHERE probe = ? AND key = ?").get(probe, key) as
    | ProbeEpisodeRow
    | undefined;
  return row === undefined ? undefined : toProbeEpisode(row, ctx);
}

export function readProbeTrajectory(ctx: StoreContext, episode: ProbeEpisodeRecord): Trajectory {
  // The file name comes from run.db: a damaged or crafted row must not make the viewer read outside the run.
  return readTrajectoryAt(resolveInside(ctx.dir, episode.trajectory_file, "trajectory file"), episode.key, {
    offset: episode.trajectory_offset,
    length: episode.trajectory_length,
    sha256: episode.trajectory_sha256,
  });
}
