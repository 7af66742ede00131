import { existsSync } from "node:fs";
import { join } from "node:path";
import { HsearchError, hashJson, PACKAGE_ROOT, resolveUserPath } from "../core";
import { type Family, isBuiltinSuite, type Kind, type Split, SUITES, type Suite, type Task } from "../domain";
import type { HarnessTaskConfig } from "../eval";
import { isModulePath, loadSuiteModule, type ModuleRecord, recordedModules } from "../plugins";
import type { RunStore } from "../store";
import { filterTasks, loadSuites, loadTaskDir } from "../tasks";

export interface TaskSelection {
  split?: Split;
  /** A built-in suite, or the path of a suite module (`./my-suite.mjs`, relative to the working directory). */
  suite?: Suite | string;
  kind?: Kind;
  family?: Family;
  /** A task directory instead of the shipped suites. */
  tasks?: string;
}

/** What is wrong with a `--suite` value, or null: a built-in suite's name or a suite module's path is right. */
export function suiteProblem(suite: string): string | null {
  return isBuiltinSuite(suite) || isModulePath(suite)
    ? null
    : `--suite ${suite}: a suite is ${SUITES.join(", ")}, or the path of a suite module (./my-suite.mjs)`;
}

/** The tasks of a selection, and the suite module they came from (its absolute path and content hash), if any. */
export interface SelectedTasks {
  tasks: Task[];
  suiteModule: { path: string; sha256: string } | null;
}

/**
 * The tasks a command works on: a directory, the shipped suites, or a plug-in suite's module, filtered by
 * split/suite/kind/family. `expectedSha256`: the suite module's hash when an evaluation began; a resume refuses a
 * module that changed since (src/plugins).
 */
export async function selectTasks(
  selection: TaskSelection,
  io: { cwd: string },
  expectedSha256?: string,
): Promise<SelectedTasks> {
  const { suite } = selection;
  if (suite !== undefined && !isBuiltinSuite(suite)) {
    const problem = suiteProblem(suite);
    if (problem) throw new HsearchError("bad_input", problem, { field: "suite" });
    if (selection.tasks !== undefined)
      throw new HsearchError(
        "bad_input",
        `--suite ${suite} and --tasks ${selection.tasks}: give a suite module or a task directory, not both`,
        { field: "suite" },
      );
    const loaded = await loadSuiteModule(resolveUserPath(suite, io.cwd), { field: "suite" }, expectedSha256);
    const { suite: _module, ...filters } = selection;
    return {
      tasks: chosenOrRefused(filterTasks(loaded.tasks, filters), loaded.path, selection),
      suiteModule: { path: loaded.path, sha256: loaded.sha256 },
    };
  }
  const all = selection.tasks
    ? loadTaskDir(resolveUserPath(selection.tasks, io.cwd)).map((loaded) => loaded.task)
    : loadSuites(PACKAGE_ROOT, suite ? [suite] : shippedSuites());
  const where = selection.tasks ?? "the shipped suites";
  const filter = { ...selection, suite };
  return { tasks: chosenOrRefused(filterTasks(all, filter), where, selection), suiteModule: null };
}

/**
 * What an evaluation directory records of its tasks: the selection (paths absolute), each task's suite and their
 * content hash; `resume` selects them again from it and refuses tasks that changed.
 */
export function recordedTasks(
  selection: TaskSelection,
  selected: SelectedTasks,
  io: { cwd: string },
): HarnessTaskConfig["tasks"] {
  const { suite, split, kind, family, tasks: dir } = selection;
  return {
    selection: {
      ...(split ? { split } : {}),
      ...(suite && isBuiltinSuite(suite) ? { suite } : {}),
      ...(selected.suiteModule ? { suite_module: selected.suiteModule } : {}),
      ...(kind ? { kind } : {}),
      ...(family ? { family } : {}),
      ...(dir ? { dir: resolveUserPath(dir, io.cwd) } : {}),
    },
    ids: selected.tasks.map((task) => task.id),
    suites: Object.fromEntries(selected.tasks.map((task) => [task.id, task.suite])),
    hash: hashJson(selected.tasks),
  };
}

/**
 * The tasks an evaluation began with, selected again; refused when they (or their suite module) changed since,
 * except the suite module whose code stopped the evaluation: a fix may change its code (not its tasks), and its new
 * content is recorded, so that a later resume holds the evaluation to it (as a run's resume does, src/plugins).
 */
export async function recordedTasksAgain(
  recorded: HarnessTaskConfig["tasks"],
  io: { cwd: string },
  store: Pick<RunStore, "paths" | "listEvents" | "logEvent">,
  say: (text: string) => void = () => {},
): Promise<Task[]> {
  const db = store.paths.db;
  const { dir, suite_module, ...filters } = recorded.selection;
  const selection = {
    ...filters,
    ...(suite_module ? { suite: suite_module.path } : {}),
    ...(dir ? { tasks: dir } : {}),
  };
  const began: ModuleRecord[] = suite_module ? [{ field: "suites", ...suite_module }] : [];
  const modules = recordedModules(store.listEvents(), db, began);
  const module = suite_module && modules.modules.find((entry) => entry.path === suite_module.path);
  const expected = module && modules.fixable !== module.path ? module.sha256 : undefined;
  const { tasks, suiteModule } = await selectTasks(selection, io, expected);
  const ids = tasks.map((task) => task.id);
  const before = recorded.ids;
  if (ids.join("\n") !== before.join("\n") || hashJson(tasks) !== recorded.hash) {
    const where = dir ?? suite_module?.path ?? "the shipped suites";
    throw new HsearchError(
      "bad_input",
      `the evaluation's tasks changed since it began (${where}: ${ids.length} tasks now, ${before.length} then, or their content differs); resume needs the same tasks — start a new evaluation instead`,
      { file: dir ?? suite_module?.path ?? db },
    );
  }
  if (module && suiteModule && suiteModule.sha256 !== module.sha256) {
    store.logEvent({
      kind: "plugin_modules",
      data: { modules: [{ ...module, sha256: suiteModule.sha256 }] },
    });
    say(
      `${module.path} changed since its code stopped the evaluation; continuing with it (sha256 ${suiteModule.sha256.slice(0, 12)}…)`,
    );
  }
  return tasks;
}

function chosenOrRefused(chosen: Task[], where: string, selection: TaskSelection): Task[] {
  if (chosen.length === 0)
    throw new HsearchError("bad_input", `no task in ${where} matches ${describeSelection(selection)}`);
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
