/**
 * `hsearch export-log`: a run's or an evaluation's episodes in the formats the field reads — an Inspect AI eval log
 * (one JSON file, one sample per episode) or ATIF trajectories (one file per episode) — and any stored trajectory
 * file as ATIF. Held-out episodes are never exported (they stay apart from everything but the held-out evaluation's
 * own tables); neither format carries a protected task field.
 */
import { readFile } from "node:fs/promises";
import { badInput, packageVersion } from "../core";
import { firstIssue, trajectorySchema } from "../harness";
import { type AtifTrajectory, type InspectEpisode, toAtif, toInspectLog } from "../interop";
import { openRun } from "./open-run";

export const EXPORT_FORMATS = ["inspect", "atif"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedEpisodes {
  /** The candidate whose episodes these are. */
  commit: string;
  episodes: InspectEpisode[];
  /** Held-out episodes left out. */
  heldOut: number;
}

/**
 * The episodes of a run's or evaluation's candidate (default: an evaluation's harness, a search's selected one),
 * without the held-out ones.
 */
export async function exportedEpisodes(
  dir: string,
  options: { candidate?: string; cwd?: string } = {},
): Promise<ExportedEpisodes & { run: ReturnType<typeof openRun>["run"] }> {
  const reader = openRun(dir, options.cwd !== undefined ? { cwd: options.cwd } : {});
  try {
    const name = options.candidate ?? (reader.run.kind === "search" ? "selected" : undefined);
    const candidate = name !== undefined ? await reader.candidate(name) : reader.candidates()[0];
    if (!candidate) throw badInput(`${reader.dir} holds no candidate to export`, { field: "candidate" });
    const rollouts = reader.rollouts(candidate.commit);
    const kept = rollouts.filter((rollout) => rollout.purpose !== "heldout");
    return {
      run: reader.run,
      commit: candidate.commit,
      episodes: kept.map((rollout) => ({ rollout, trajectory: reader.trajectory(rollout) })),
      heldOut: rollouts.length - kept.length,
    };
  } finally {
    reader.close();
  }
}

/** The Inspect eval log of a run's or evaluation's candidate. */
export async function exportInspectLog(
  dir: string,
  options: { candidate?: string; cwd?: string } = {},
): Promise<{ log: Record<string, unknown>; samples: number; heldOut: number }> {
  const { run, commit, episodes, heldOut } = await exportedEpisodes(dir, options);
  const log = toInspectLog({ run, commit, episodes, hsearchVersion: packageVersion() });
  return { log, samples: episodes.length, heldOut };
}

/** Every exported episode of a run's or evaluation's candidate as ATIF, named by task, seed and repeat. */
export async function exportAtifTrajectories(
  dir: string,
  options: { candidate?: string; cwd?: string } = {},
): Promise<{ trajectories: Array<{ name: string; atif: AtifTrajectory }>; heldOut: number }> {
  const { episodes, heldOut } = await exportedEpisodes(dir, options);
  const version = packageVersion();
  return {
    trajectories: episodes.map(({ rollout, trajectory }) => {
      const name = `${rollout.task_id}-s${rollout.seed}-r${rollout.repeat}`;
      return { name, atif: toAtif(trajectory, { agentVersion: version, sessionId: rollout.key }) };
    }),
    heldOut,
  };
}

/** A trajectory file in hsearch's format (as `hsearch agent` writes it) as ATIF; bad_input naming the field. */
export async function trajectoryFileAsAtif(file: string): Promise<AtifTrajectory> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw badInput(`${file}: not a JSON trajectory (${(error as Error).message})`, { file });
  }
  const result = trajectorySchema.safeParse(parsed);
  if (!result.success) {
    const issue = firstIssue(result.error);
    throw badInput(`${file}: not an hsearch trajectory: ${issue.path}: ${issue.message}`, {
      file,
      field: issue.path,
    });
  }
  return toAtif(result.data, { agentVersion: packageVersion() });
}
