/** The run directory `runs/<run-id>/` (docs/DESIGN.md §3): run.db, harness/, trajectories/, report.html. */
import { lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { badInput, HsearchError } from "../core/errors";
import type { Probe, Purpose } from "./records";

export interface RunPaths {
  dir: string;
  db: string;
  harness: string;
  trajectories: string;
  report: string;
}

export function runPaths(dir: string): RunPaths {
  return {
    dir,
    db: join(dir, "run.db"),
    harness: join(dir, "harness"),
    trajectories: join(dir, "trajectories"),
    report: join(dir, "report.html"),
  };
}

/**
 * Trajectory file of a candidate, relative to the run directory. Search rollouts go to `<commit>.jsonl`; held-out,
 * independent and diagnostic ones to `<commit>.<purpose>.jsonl`, so nothing that reads search trajectories can
 * come across them.
 */
export function trajectoryFile(commit: string, purpose: Purpose): string {
  if (!/^[0-9a-f]{4,64}$/.test(commit)) throw badInput(`not a commit sha: '${commit}'`, { field: "commit" });
  return purpose === "search" ? `trajectories/${commit}.jsonl` : `trajectories/${commit}.${purpose}.jsonl`;
}

/** Trajectory file of a candidate's probe episodes, relative to the run directory: `<commit>.probe-<probe>.jsonl`. */
export function probeTrajectoryFile(commit: string, probe: Probe): string {
  if (!/^[0-9a-f]{4,64}$/.test(commit)) throw badInput(`not a commit sha: '${commit}'`, { field: "commit" });
  return `trajectories/${commit}.probe-${probe}.jsonl`;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Creates `<root>/<runId>/` with its trajectories folder; an existing run directory is a conflict. With
 * `allowEmpty`, an existing empty directory is taken (`hsearch eval --out "$(mktemp -d)"`).
 */
export function createRunDir(root: string, runId: string, options: { allowEmpty?: boolean } = {}): RunPaths {
  if (!RUN_ID.test(runId) || runId.includes("..")) {
    throw badInput(`run id '${runId}' must be letters, digits, '.', '_' or '-'`, { field: "run id" });
  }
  const paths = runPaths(join(root, runId));
  mkdirSync(root, { recursive: true });
  try {
    mkdirSync(paths.dir);
  } catch (error) {
    const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
    if (exists && !(options.allowEmpty && isEmptyDir(paths.dir))) {
      throw new HsearchError("conflict", `run directory ${paths.dir} already exists (use --resume)`, {
        file: paths.dir,
      });
    }
    if (!exists) throw error;
  }
  mkdirSync(paths.trajectories);
  return paths;
}

function isEmptyDir(dir: string): boolean {
  return lstatSync(dir).isDirectory() && readdirSync(dir).length === 0;
}
