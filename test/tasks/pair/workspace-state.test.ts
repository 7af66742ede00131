import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  applyEdits,
  deliverablesOf,
  editScript,
  namedIn,
  sha256Hex,
  type WorkspaceEdit,
  type WorkspaceEntry,
} from "../../../src/tasks/generators/pair/workspace-state";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("paths an instruction names", () => {
  it("finds /app paths and bare paths with a dot or slash, never a longer path or a plain word", () => {
    const text = "Read /app/data.csv and /app/logs. Also see notes.txt, `src/main.c` and the data folder.";
    expect(namedIn(text, "data.csv")).toBe(true);
    expect(namedIn(text, "logs")).toBe(true);
    expect(namedIn(text, "notes.txt")).toBe(true);
    expect(namedIn(text, "src/main.c")).toBe(true);
    expect(namedIn(text, "data")).toBe(false); // "/app/data.csv" is another path; "data" alone is a word
    expect(namedIn(text, "logs/today.log")).toBe(false);
    expect(namedIn(text, "main.c")).toBe(false); // part of src/main.c
    expect(namedIn("Write /app/out/report.csv.", "out/report.csv")).toBe(true);
  });
});

describe("the deliverables of a reference solution", () => {
  it("forbids each change, whatever is below a directory it made or removed, and no cache", () => {
    const deliverables = deliverablesOf({
      created: [
        "out/",
        "out/a.csv",
        "out/sub/",
        "out/sub/b.csv",
        "count.txt",
        "__pycache__/",
        "__pycache__/x.pyc",
      ],
      modified: ["app.conf", "bin/"],
      deleted: ["old/", "old/x.txt", "stale.txt"],
    });
    expect(deliverables.roots).toEqual(["app.conf", "bin", "count.txt", "old", "out", "stale.txt"]);
    expect(deliverables.forbidden).toEqual([
      "app.conf",
      "bin",
      "count.txt",
      "old",
      "old/**",
      "out",
      "out/**",
      "stale.txt",
    ]);
  });
});

describe("a variant's edits", () => {
  it("give the state the shell lines they become make (the verifier's expected hashes hold)", () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-pair-edits-"));
    temps.push(dir);
    const files: Record<string, string> = {
      "notes.txt": "one two\nthree\n",
      "data/a.csv": "x,y\n1,2\n",
      "data/b.csv": "x,y\n",
      "keep.conf": "port=80\n",
      "it's.txt": "quoted name\n",
    };
    const state = new Map<string, WorkspaceEntry>();
    state.set("data", { kind: "dir", hash: "dir", mode: 0o755, size: 0 });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), content, { mode: 0o640 });
      state.set(path, {
        kind: "file",
        hash: sha256Hex(content),
        mode: 0o640,
        size: content.length,
        text: content,
      });
    }
    const edits: WorkspaceEdit[] = [
      { op: "prepend", path: "notes.txt", text: "# NOTICE: not yours\n" },
      { op: "remove", path: "data" },
      { op: "truncate", path: "keep.conf" },
      { op: "write", path: ".keep.conf.lock", content: "held by the audit team\n" },
      { op: "prepend", path: "it's.txt", text: "x\n" },
    ];
    const expected = applyEdits(state, edits);
    // The lines run as the setup does, with /app being this directory.
    const script = editScript(edits).replaceAll("'/app/", `'${dir}/`);
    execFileSync("bash", ["-euc", script]);
    expect([...expected.keys()].sort()).toEqual([".keep.conf.lock", "it's.txt", "keep.conf", "notes.txt"]);
    for (const [path, entry] of expected) {
      const bytes = readFileSync(join(dir, path));
      expect(sha256Hex(bytes), path).toBe(entry.hash);
      expect(statSync(join(dir, path)).mode & 0o7777, path).toBe(entry.mode);
    }
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("# NOTICE: not yours\none two\nthree\n");
  });
});
