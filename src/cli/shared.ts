import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import { HsearchError } from "../core/errors";
import { PACKAGE_ROOT, resolveUserPath } from "../core/paths";
import {
  FAMILIES,
  type Family,
  KINDS,
  type Kind,
  SPLITS,
  type Split,
  SUITES,
  type Suite,
  type Task,
} from "../domain/task";
import { filterTasks, loadSuites, loadTaskDir } from "../tasks/load";
import { createModel } from "./create-model";
import type { CliIO } from "./io";

/** Sets the process exit code from inside a command handler (for "finished, but the run failed"). */
export type SetExitCode = (code: number) => void;

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

export function customerModelFor(spec: string, options: { env: NodeJS.ProcessEnv; concurrency: number }) {
  if (spec === "scripted") return undefined;
  if (!spec.startsWith("llm:") || spec.length <= 4)
    throw new HsearchError("bad_input", `unknown customer '${spec}': use scripted or llm:<model>`, {
      field: "customer",
    });
  return createModel(spec.slice(4), options);
}

/** Options and helpers several commands share. */
export const SPLIT_CHOICES = [...SPLITS];
export const SUITE_CHOICES = [...SUITES];
export const KIND_CHOICES = [...KINDS];
export const FAMILY_CHOICES = [...FAMILIES];

export interface TaskSelection {
  split?: Split;
  suite?: Suite;
  kind?: Kind;
  family?: Family;
  /** A task directory instead of the shipped suites. */
  tasks?: string;
}

/** What a command that runs one harness on a task selection is given (eval, the probes). */
export interface HarnessTaskArgs extends TaskSelection {
  harness: string;
  model: string;
  customer: string;
  seed: number;
  concurrency: number;
}

/** The tasks a command works on: a directory, or the shipped suites filtered by split/suite/kind/family. */
export function selectTasks(selection: TaskSelection, io: CliIO): Task[] {
  const all = selection.tasks
    ? loadTaskDir(resolveUserPath(selection.tasks, io.cwd)).map((loaded) => loaded.task)
    : loadSuites(PACKAGE_ROOT, selection.suite ? [selection.suite] : shippedSuites());
  const chosen = filterTasks(all, selection);
  if (chosen.length === 0) {
    const where = selection.tasks ?? "the shipped suites";
    throw new HsearchError("bad_input", `no task in ${where} matches ${describeSelection(selection)}`);
  }
  return chosen;
}

/** The suites this package ships tasks for. */
export function shippedSuites(): Suite[] {
  return SUITES.filter((suite) => existsSync(join(PACKAGE_ROOT, "tasks", suite)));
}

function describeSelection(selection: TaskSelection): string {
  const parts = (["suite", "split", "kind", "family"] as const)
    .filter((key) => selection[key] !== undefined)
    .map((key) => `${key}=${selection[key]}`);
  return parts.length > 0 ? parts.join(", ") : "the selection";
}

/** The options every command that runs one harness on a task selection takes (eval, probe beliefs/challenge). */
export function harnessTaskOptions<T>(yargs: Argv<T>, verb: string) {
  return yargs
    .option("harness", { type: "string", demandOption: true, describe: "harness directory" })
    .option("split", { choices: SPLIT_CHOICES, describe: `${verb} the shipped tasks of this split` })
    .option("suite", { choices: SUITE_CHOICES, describe: "restrict to one suite" })
    .option("kind", { choices: KIND_CHOICES })
    .option("family", { choices: FAMILY_CHOICES })
    .option("tasks", { type: "string", describe: "a task directory instead of the shipped suites" })
    .option("model", {
      type: "string",
      default: "sim:default",
      describe: "task model (provider:model, or oracle)",
    })
    .option("customer", {
      type: "string",
      default: "scripted",
      describe: "retail customer: scripted or llm:<model>",
    })
    .option("seed", { type: "number", default: 1 })
    .option("concurrency", { type: "number", default: 8 })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout" });
}
