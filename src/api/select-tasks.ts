import { existsSync } from "node:fs";
import { join } from "node:path";
import { HsearchError } from "../core/errors";
import { PACKAGE_ROOT, resolveUserPath } from "../core/paths";
import { type Family, type Kind, type Split, SUITES, type Suite, type Task } from "../domain/task";
import { filterTasks, loadSuites, loadTaskDir } from "../tasks/load";

export interface TaskSelection {
  split?: Split;
  suite?: Suite;
  kind?: Kind;
  family?: Family;
  /** A task directory instead of the shipped suites. */
  tasks?: string;
}

/** The tasks a command works on: a directory, or the shipped suites filtered by split/suite/kind/family. */
export function selectTasks(selection: TaskSelection, io: { cwd: string }): Task[] {
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
