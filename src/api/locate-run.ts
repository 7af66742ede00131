import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { HsearchError } from "../core";
import { type SearchConfig, searchConfigSchema } from "../search";
import { RUN_KIND_LABEL } from "../store";
import type { RunReader } from "../store/types";

/**
 * Where a run lives: a directory, or a bare run id under runs/. A path (anything with a slash) is only ever that
 * directory, never looked up again under runs/ (which would print a doubled runs/runs/… path).
 */
export function locateRun(run: string, cwd: string): string {
  const candidates = runDirCandidates(run, cwd);
  const found = candidates.find((dir) => existsSync(join(dir, "run.db")));
  if (found) return found;
  throw new HsearchError(
    "not_found",
    `no run '${run}' (looked for ${candidates.map((dir) => `${dir}/run.db`).join(" and ")})`,
  );
}

function runDirCandidates(run: string, cwd: string): string[] {
  const asDir = resolve(cwd, run);
  return /[\\/]/.test(run) || run === "." || run === ".." ? [asDir] : [asDir, resolve(cwd, "runs", run)];
}

/**
 * The directory of a run that may not have started yet (`hsearch view` right after `hsearch run`): the run found
 * as `locateRun` finds it, else an existing directory, else the path as given (a bare id under runs/).
 */
export function locateRunToCome(run: string, cwd: string): string {
  const candidates = runDirCandidates(run, cwd);
  return (
    candidates.find((dir) => existsSync(join(dir, "run.db"))) ??
    candidates.find((dir) => existsSync(dir)) ??
    (candidates[candidates.length - 1] as string)
  );
}

/** The run's config as stored in run.db, validated; bad_input naming run.db and the field otherwise. */
export function storedConfig(store: RunReader): SearchConfig {
  const record = store.getRun();
  if (!record)
    throw new HsearchError("not_found", "no run recorded in this run directory", { file: store.paths.db });
  if (record.kind !== "search")
    throw new HsearchError(
      "bad_input",
      `${store.paths.dir} holds ${RUN_KIND_LABEL[record.kind]}, not a search run (hsearch status, report and view open it)`,
      { file: store.paths.dir },
    );
  const parsed = searchConfigSchema.safeParse(record.config);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".") || undefined;
  throw new HsearchError(
    "bad_input",
    `run.db is damaged: the stored config does not validate (${issue?.message ?? "invalid"}); the run was left as it is`,
    { file: store.paths.db, field },
  );
}
