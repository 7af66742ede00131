import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadStudy } from "../../src/api/study-plan";
import { retailSubset } from "../helpers/task-subset";

/** A study directory holding a study file with one terminal benchmark (`tasks` line as given). */
function studyIn(tasksLine: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-study-tb2-"));
  const file = join(dir, "study.yaml");
  writeFileSync(file, `name: tb2\nbenchmarks:\n  - suite: terminal\n${tasksLine}`);
  return { dir, file };
}

describe("the study's terminal benchmark and the suite tasks pair writes", () => {
  it("takes tasks/tb2 under the directory it runs in when that directory is there", () => {
    const { dir, file } = studyIn("");
    // A small paired terminal suite where `tasks pair` writes by default.
    const suite = join(dir, "tasks", "tb2");
    retailSubset({ suites: ["terminal"], perFamily: 1, heldoutPerFamily: 1, independent: 1, into: suite });
    expect(loadStudy(file, dir).study.benchmarks[0]?.tasks).toBe(suite);
  });

  it("keeps the shipped terminal suite without that directory, with `tasks: null`, and for retail", () => {
    const bare = studyIn("");
    expect(loadStudy(bare.file, bare.dir).study.benchmarks[0]?.tasks).toBeUndefined();
    const shipped = studyIn("    tasks: null\n");
    mkdirSync(join(shipped.dir, "tasks", "tb2"), { recursive: true });
    expect(loadStudy(shipped.file, shipped.dir).study.benchmarks[0]?.tasks).toBeUndefined();
    const retail = mkdtempSync(join(tmpdir(), "hsearch-study-retail-"));
    mkdirSync(join(retail, "tasks", "tb2"), { recursive: true });
    writeFileSync(join(retail, "study.yaml"), "benchmarks:\n  - suite: retail\n");
    expect(loadStudy(join(retail, "study.yaml"), retail).study.benchmarks[0]?.tasks).toBeUndefined();
  });

  it("prefers the file's own task directory, relative to the file", () => {
    const { dir, file } = studyIn("    tasks: mine\n");
    mkdirSync(join(dir, "tasks", "tb2"), { recursive: true });
    expect(loadStudy(file, dir).study.benchmarks[0]?.tasks).toBe(join(dir, "mine"));
  });
});
