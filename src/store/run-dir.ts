/** The run directory `runs/<run-id>/` (docs/DESIGN.md §3): run.db, harness/, trajectories/, report.html. */
import { existsSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { badInput, HsearchError } from "../core";
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

/**
 * What a directory is to a reader waiting for a run (`hsearch view` started before `hsearch run`): `run` holds
 * run.db; `coming` may become a run (it does not exist yet, is empty, or holds only what `hsearch run`/`eval` make
 * first: trajectories/, harness/, the run lock); `other` is something else and will not become one (a directory of
 * other files, a file).
 */
export function runDirState(dir: string): "run" | "coming" | "other" {
  if (!existsSync(dir)) return "coming";
  if (!statSync(dir).isDirectory()) return "other";
  const paths = runPaths(dir);
  if (existsSync(paths.db)) return "run";
  const entries = readdirSync(dir);
  const runFiles = new Set(["trajectories", "harness", "run.lock.db", "run.lock.db-journal"]);
  return entries.every((entry) => runFiles.has(entry)) ? "coming" : "other";
}
