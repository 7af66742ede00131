import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isHsearchError } from "../../src/core/errors";
import type { Task } from "../../src/domain/task";
import { loadTaskFile } from "../../src/tasks/loading/load";
import { formatTaskJson, writeTaskFiles } from "../../src/tasks/loading/write";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function task(id: string, split: Task["split"] = "search"): Task {
  // Built in a scrambled key order on purpose: the file must not depend on it.
  return {
    sim: { say: [], steps: [{ name: "get_user_details", arguments: { user_id: "u" } }] },
    verify: { kind: "retail_db" },
    forbidden: {},
    reference: { communicate: [], actions: [] },
    env: {},
    instruction: "Hi.",
    kind: "feasible",
    split,
    suite: "retail",
    id,
  };
}

describe("formatTaskJson", () => {
  it("writes keys in a fixed order, 2-space indented, with a trailing newline", () => {
    const text = formatTaskJson(task("t-1"));
    expect(Object.keys(JSON.parse(text))).toEqual([
      "id",
      "suite",
      "split",
      "kind",
      "instruction",
      "env",
      "reference",
      "verify",
      "forbidden",
      "sim",
    ]);
    expect(Object.keys(JSON.parse(text).sim)).toEqual(["steps", "say"]);
    expect(Object.keys(JSON.parse(text).reference)).toEqual(["actions", "communicate"]);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toBe('  "id": "t-1",');
  });
});

describe("writeTaskFiles", () => {
  it("writes <split>/<id>.json files that load back as the same tasks", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-write-"));
    dirs.push(dir);
    writeTaskFiles([task("a"), task("b", "heldout")], dir);
    expect(loadTaskFile(join(dir, "search", "a.json"))).toEqual(task("a"));
    expect(readdirSync(join(dir, "heldout"))).toEqual(["b.json"]);
  });

  it("with replace, removes stale task files first", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-write-"));
    dirs.push(dir);
    writeTaskFiles([task("old")], dir);
    writeFileSync(join(dir, "search", "notes.txt"), "kept");
    writeTaskFiles([task("new")], dir, { replace: true });
    expect(readdirSync(join(dir, "search")).sort()).toEqual(["new.json", "notes.txt"]);
    expect(readFileSync(join(dir, "search", "notes.txt"), "utf8")).toBe("kept");
  });

  it("refuses two tasks with one id", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-write-"));
    dirs.push(dir);
    let caught: unknown;
    try {
      writeTaskFiles([task("same"), task("same", "heldout")], dir);
    } catch (error) {
      caught = error;
    }
    expect(isHsearchError(caught, "internal")).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
