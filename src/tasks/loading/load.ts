import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { readPositioned, validateDocument } from "../../config";
import { HsearchError } from "../../core";
import type { Family, Kind, Split, Suite, Task } from "../../domain";
import { taskSchema } from "../../domain";
import { checkTaskSet } from "./validate";

/** A task and the file it came from (errors and `tasks validate` name the file). */
export interface LoadedTask {
  task: Task;
  file: string;
}

const TASK_FILE = /\.(json|ya?ml)$/;

/**
 * Every task file below `dir` (sorted, so loading order never depends on the file system). Symlinked directories
 * are followed once: a directory already on the way down (a symlink loop) is refused, naming the path.
 */
export function listTaskFiles(dir: string, visiting: ReadonlySet<string> = new Set()): string[] {
  let entries: string[];
  let real: string;
  try {
    if (!statSync(dir).isDirectory()) return TASK_FILE.test(dir) ? [dir] : [];
    real = realpathSync(dir);
    entries = readdirSync(dir).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP")
      throw new HsearchError("bad_input", "a symlink loop in the task directory", {
        file: dir,
        cause: error,
      });
    throw new HsearchError("not_found", "no such task directory", { file: dir, cause: error });
  }
  if (visiting.has(real))
    throw new HsearchError("bad_input", "a symlink loop in the task directory (refused)", { file: dir });
  const below = new Set([...visiting, real]);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.startsWith(".")) continue;
    const path = join(dir, entry);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new HsearchError("bad_input", `cannot read: ${code}`, { file: path, cause: error });
    }
    if (isDirectory) files.push(...listTaskFiles(path, below));
    else if (TASK_FILE.test(entry)) files.push(path);
  }
  return files;
}

export function loadTaskFile(file: string): Task {
  const task: Task = validateDocument(taskSchema, readPositioned(file));
  return task;
}

/** Load and validate every task below `dir`; duplicate ids are an error naming both files. */
export function loadTaskDir(dir: string): LoadedTask[] {
  const seen = new Map<string, string>();
  const loaded: LoadedTask[] = [];
  for (const file of listTaskFiles(dir)) {
    const task = loadTaskFile(file);
    const previous = seen.get(task.id);
    if (previous !== undefined) {
      throw new HsearchError(
        "bad_input",
        `duplicate task id '${task.id}' (also in ${relative(process.cwd(), previous)})`,
        {
          file,
          field: "id",
          line: readPositioned(file).lineOf(["id"]),
        },
      );
    }
    seen.set(task.id, file);
    loaded.push({ task, file });
  }
  // The checks across the set too, so `tasks validate`, `eval` and `run` accept and refuse the same directories.
  checkTaskSet(loaded);
  return loaded;
}

export interface TaskFilter {
  suite?: Suite;
  split?: Split;
  kind?: Kind;
  family?: Family;
}

export function filterTasks<T extends Task>(tasks: readonly T[], filter: TaskFilter): T[] {
  return tasks.filter(
    (task) =>
      (filter.suite === undefined || task.suite === filter.suite) &&
      (filter.split === undefined || task.split === filter.split) &&
      (filter.kind === undefined || task.kind === filter.kind) &&
      (filter.family === undefined || task.family === filter.family),
  );
}

/** The suites shipped with the project live in `<root>/tasks/<suite>`. */
export function suiteDir(root: string, suite: Suite): string {
  return join(root, "tasks", suite);
}

/** Load the shipped suites (those that exist) below a project root. */
export function loadSuites(root: string, suites: readonly Suite[]): Task[] {
  return suites.flatMap((suite) => loadTaskDir(suiteDir(root, suite)).map((loaded) => loaded.task));
}
