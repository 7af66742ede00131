/**
 * Task suites as `hsearch tasks` manages them: list, validate, generate from a seed, import τ²-bench. The CLI
 * parses flags, calls these and prints.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { assertOutputApart, HsearchError, PACKAGE_ROOT, resolveUserPath } from "../core";
import { isBuiltinSuite, type Split, SUITES, type Suite, type Task } from "../domain";
import { loadSuiteModule } from "../plugins";
import {
  buildRetailSuite,
  buildTerminalSuite,
  checkTaskSet,
  checkTerminalTasks,
  DEFAULT_RETAIL_SEED,
  DEFAULT_TERMINAL_SEED,
  filterTasks,
  importTau2File,
  type LoadedTask,
  loadTaskDir,
  suiteDir,
  type TaskFilter,
  writeTaskFiles,
} from "../tasks";
import type { TaskSelection } from "./select-tasks";

/** A path `validateTasks` takes for a suite module rather than task files. */
const SUITE_MODULE = /\.(mjs|cjs|js)$/;

/**
 * The tasks of a selection as `hsearch tasks list` shows them: the shipped suites, a task directory or a suite
 * module's, filtered by suite, split, kind and family.
 */
export async function listTasks(selection: TaskSelection, options: { cwd: string }): Promise<Task[]> {
  const { suite } = selection;
  const filter: TaskFilter = {
    ...(suite !== undefined && isBuiltinSuite(suite) ? { suite } : {}),
    split: selection.split,
    kind: selection.kind,
    family: selection.family,
  };
  const module = suite !== undefined && !isBuiltinSuite(suite) ? suite : undefined;
  if (module && selection.tasks)
    throw new HsearchError(
      "bad_input",
      `--suite ${module} and --tasks: give a suite module or a task directory, not both`,
      { field: "suite" },
    );
  const all = module
    ? (await loadSuiteModule(resolveUserPath(module, options.cwd), { field: "suite" })).tasks
    : (selection.tasks
        ? loadTaskDir(resolveUserPath(selection.tasks, options.cwd))
        : loadShipped(suite === undefined || !isBuiltinSuite(suite) ? undefined : [suite])
      ).map((entry) => entry.task);
  return filterTasks(all, filter);
}

/** What `validateTasks` found valid; `suite` names a suite module's runtime when the path was one. */
export interface ValidatedTasks {
  tasks: Task[];
  suite: string | null;
}

/**
 * Validates task files (default: every shipped suite) or a suite module's tasks, as a search loads them; the first
 * problem is bad_input naming the file and field.
 */
export async function validateTasks(
  path: string | undefined,
  options: { cwd: string },
): Promise<ValidatedTasks> {
  if (path && SUITE_MODULE.test(path)) {
    // The checks a search makes when its config names the module: the task schema and across the set.
    const suite = await loadSuiteModule(resolveUserPath(path, options.cwd), { field: "module" });
    return { tasks: suite.tasks, suite: suite.runtime.name };
  }
  const loaded = path ? loadTaskDir(resolveUserPath(path, options.cwd)) : loadShipped(undefined);
  checkTaskSet(loaded);
  return { tasks: loaded.map((entry) => entry.task), suite: null };
}

export interface GenerateSuiteOptions {
  cwd: string;
  suite: Suite;
  /** Default: the suite's shipped seed. */
  seed?: number;
  /** terminal: prove every task in the sandbox before writing (default true). */
  check?: boolean;
  /** Default: the package's tasks/<suite>. */
  out?: string;
}

/** Regenerates a built-in suite deterministically from its seed and writes it, replacing what was there. */
export async function generateSuite(options: GenerateSuiteOptions): Promise<{ tasks: Task[]; dir: string }> {
  const seed = options.seed ?? (options.suite === "retail" ? DEFAULT_RETAIL_SEED : DEFAULT_TERMINAL_SEED);
  if (!Number.isSafeInteger(seed))
    throw new HsearchError("bad_input", "--seed must be an integer", { field: "seed" });
  const dir = options.out ? resolve(options.cwd, options.out) : suiteDir(PACKAGE_ROOT, options.suite);
  const tasks =
    options.suite === "retail"
      ? buildRetailSuite({ seed }).tasks
      : await terminalTasks(seed, options.check ?? true);
  writeTaskFiles(tasks, dir, { replace: true });
  return { tasks, dir };
}

/** Imports a τ²-bench retail tasks file as feasible tasks of `split`, written under `out/<split>`. */
export function importTau2(options: { cwd: string; file: string; out: string; split: Split }): {
  tasks: Task[];
  dir: string;
} {
  const file = resolveUserPath(options.file, options.cwd);
  const out = resolve(options.cwd, options.out);
  assertOutputApart({ path: out, name: "--out" }, [{ path: file, name: "the τ² tasks file" }]);
  const tasks = importTau2File(file, options.split);
  writeTaskFiles(tasks, out);
  return { tasks, dir: join(out, options.split) };
}

/** The terminal suite, proved in the sandbox first unless told not to (a failed proof is a generator bug). */
async function terminalTasks(seed: number, check: boolean): Promise<Task[]> {
  const tasks = buildTerminalSuite({ seed });
  if (!check) return tasks;
  const problems = await checkTerminalTasks(tasks);
  if (problems.length > 0)
    throw new HsearchError("internal", `terminal suite check failed:\n${problems.join("\n")}`);
  return tasks;
}

/** The shipped suites that exist (an explicitly named one must). */
function loadShipped(suites: readonly Suite[] | undefined): LoadedTask[] {
  const wanted = suites ?? SUITES.filter((suite) => existsSync(suiteDir(PACKAGE_ROOT, suite)));
  return wanted.flatMap((suite) => loadTaskDir(suiteDir(PACKAGE_ROOT, suite)));
}
