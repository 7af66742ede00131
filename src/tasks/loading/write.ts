/**
 * Task files on disk: one pretty-printed JSON file per task (`<dir>/<split>/<id>.json`) with a fixed key order, so that
 * writing the same tasks twice gives the same bytes and a diff of a regenerated suite shows only what changed.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HsearchError } from "../../core";
import { SPLITS, type Task } from "../../domain";

const KEY_ORDER: Record<string, readonly string[]> = {
  task: [
    "id",
    "suite",
    "split",
    "kind",
    "family",
    "source",
    "instruction",
    "user",
    "env",
    "reference",
    "verify",
    "blocker",
    "forbidden",
    "sim",
  ],
  user: ["reason_for_call", "known_info", "unknown_info", "task_instructions"],
  blocker: ["id", "label", "description", "keywords", "evidence", "decisive_step"],
  sim: ["steps", "evidence_after", "evidence_text", "right_reason", "wrong_reason", "say"],
  reference: ["actions", "communicate", "solution"],
};

/** Keys in the order above; keys not listed (tool arguments, overlays) keep the order they were built in. */
function ordered(value: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of order) if (value[key] !== undefined) out[key] = value[key];
  for (const key of Object.keys(value)) if (!(key in out) && value[key] !== undefined) out[key] = value[key];
  return out;
}

export function formatTaskJson(task: Task): string {
  const top = ordered(task, KEY_ORDER.task ?? []);
  for (const field of ["user", "blocker", "sim", "reference"] as const) {
    const member = top[field];
    if (member !== undefined) top[field] = ordered(member as Record<string, unknown>, KEY_ORDER[field] ?? []);
  }
  return `${JSON.stringify(top, null, 2)}\n`;
}

export function taskFilePath(dir: string, task: Task): string {
  return join(dir, task.split, `${task.id}.json`);
}

/**
 * Write `tasks` below `dir` as `<split>/<id>.json`. With `replace`, task files already in those split folders are
 * removed first, so the folder holds exactly these tasks (a regenerated suite leaves no stale file behind).
 */
export function writeTaskFiles(
  tasks: readonly Task[],
  dir: string,
  options: { replace?: boolean } = {},
): string[] {
  const ids = new Set<string>();
  for (const task of tasks) {
    if (ids.has(task.id)) throw new HsearchError("internal", `two tasks have the id '${task.id}'`);
    ids.add(task.id);
  }
  if (options.replace) {
    for (const split of SPLITS) removeTaskFiles(join(dir, split));
  }
  const written: string[] = [];
  for (const task of tasks) {
    const file = taskFilePath(dir, task);
    mkdirSync(join(dir, task.split), { recursive: true });
    writeFileSync(file, formatTaskJson(task));
    written.push(file);
  }
  return written;
}

function removeTaskFiles(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // nothing to replace
    throw new HsearchError("bad_input", `cannot list task files: ${String(error)}`, {
      file: dir,
      cause: error,
    });
  }
  for (const entry of entries) if (entry.endsWith(".json")) rmSync(join(dir, entry));
}
