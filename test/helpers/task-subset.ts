import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import { FAMILIES } from "../../src/domain/task";
import { loadTaskDir } from "../../src/tasks/loading/load";
import { formatTaskJson } from "../../src/tasks/loading/write";

/**
 * A small, balanced slice of the shipped retail suite in a temp dir: per split, `perFamily` blocked tasks of each
 * family with their feasible counterparts, plus `independent` independent tasks. Fast end-to-end runs use it.
 */
export function retailSubset(
  options: {
    perFamily?: number;
    heldoutPerFamily?: number;
    independent?: number;
    suites?: readonly string[];
    /** Where to write the tasks (made if missing); default a new temp dir. */
    into?: string;
  } = {},
): {
  dir: string;
  tasks: Task[];
} {
  const all = (options.suites ?? ["retail"]).flatMap((suite) =>
    loadTaskDir(join(PACKAGE_ROOT, "tasks", suite)).map((loaded) => loaded.task),
  );
  const byId = new Map(all.map((task) => [task.id, task]));
  const chosen: Task[] = [];
  const pick = (split: "search" | "heldout", count: number) => {
    for (const family of FAMILIES) {
      const blocked = (options.suites ?? ["retail"]).flatMap((suite) =>
        all.filter((t) => t.split === split && t.family === family && t.suite === suite).slice(0, count),
      );
      for (const task of blocked) {
        chosen.push(task);
        const source = task.source ? byId.get(task.source) : undefined;
        if (source) chosen.push(source);
      }
    }
  };
  pick("search", options.perFamily ?? 2);
  pick("heldout", options.heldoutPerFamily ?? 1);
  for (const suite of options.suites ?? ["retail"])
    chosen.push(
      ...all.filter((t) => t.split === "independent" && t.suite === suite).slice(0, options.independent ?? 2),
    );
  const dir = options.into ?? mkdtempSync(join(tmpdir(), "hsearch-tasks-"));
  for (const task of chosen) {
    mkdirSync(join(dir, task.split), { recursive: true });
    writeFileSync(join(dir, task.split, `${task.id}.json`), formatTaskJson(task));
  }
  return { dir, tasks: chosen };
}
