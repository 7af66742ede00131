/**
 * Checks across a set of tasks that the per-file schema cannot make: every blocked task's `source` is a feasible task
 * of the set, no independent task is anyone's source, and search and held-out variants come from disjoint sources.
 */
import { readPositioned } from "../../config";
import { HsearchError } from "../../core";
import type { LoadedTask } from "./load";

/**
 * `fail` makes the error of a task whose `field` is wrong; by default it names the task's file and line (a plug-in
 * suite's tasks have no file of their own: its loader names the module and the task instead).
 */
export function checkTaskSet(
  loaded: readonly LoadedTask[],
  fail: (entry: LoadedTask, field: string, message: string) => HsearchError = sourceError,
): void {
  const byId = new Map(loaded.map((entry) => [entry.task.id, entry]));
  const sourcesBySplit = new Map<string, Map<string, LoadedTask>>();
  for (const entry of loaded) {
    const { task } = entry;
    if (task.kind !== "blocked") continue;
    if (task.source === undefined)
      throw fail(entry, "source", "a blocked task needs its feasible counterpart as source");
    const counterpart = byId.get(task.source);
    if (counterpart === undefined)
      throw fail(entry, "source", `source '${task.source}' is not among the tasks`);
    if (counterpart.task.kind !== "feasible")
      throw fail(entry, "source", `source '${task.source}' is not feasible`);
    if (counterpart.task.split === "independent") {
      throw fail(entry, "source", `source '${task.source}' is an independent task (never augmented)`);
    }
    const sources = sourcesBySplit.get(task.split) ?? new Map<string, LoadedTask>();
    sources.set(task.source, entry);
    sourcesBySplit.set(task.split, sources);
  }
  const search = sourcesBySplit.get("search") ?? new Map<string, LoadedTask>();
  for (const [source, entry] of sourcesBySplit.get("heldout") ?? new Map<string, LoadedTask>()) {
    const other = search.get(source);
    if (other !== undefined) {
      throw fail(
        entry,
        "source",
        `source '${source}' is used by held-out and search tasks (also ${other.task.id})`,
      );
    }
  }
}

function sourceError(entry: LoadedTask, field: string, message: string): HsearchError {
  return new HsearchError("bad_input", message, {
    file: entry.file,
    field,
    line: readPositioned(entry.file).lineOf([field]),
  });
}
