import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli, SOURCE_CLI } from "../helpers/cli";
import { compiledPackage } from "../helpers/compiled-package";
import { retailSubset } from "../helpers/task-subset";

// The compiled command as `npm ci` builds it, built afresh into a directory of its own (never the dist/ a user may
// be running), so a stale build can neither pass nor fail this test. Every other test runs the sources.
let BIN: string;
let removeBuild = () => {};
let work: string;

function built(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: work, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  const compiled = await compiledPackage();
  BIN = join(compiled.dir, "cli", "bin.js");
  removeBuild = compiled.remove;
  work = mkdtempSync(join(tmpdir(), "hsearch-bin-"));
}, 300_000);

afterAll(() => {
  removeBuild();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the compiled hsearch command", () => {
  it("prints the same help as the sources, listing every command", () => {
    const compiled = built(["--help"]);
    const source = spawnSync(process.execPath, [...SOURCE_CLI, "--help"], { cwd: work, encoding: "utf8" });
    expect(compiled.code).toBe(0);
    expect(compiled.stdout).toBe(source.stdout);
    expect(compiled.stdout).toContain("hsearch status <run>");
  });

  it("runs a search from another directory (data, prompts and profiles found from the build) and reports it as the sources do", async () => {
    const tasks = retailSubset({ perFamily: 1 }).dir;
    const config = join(work, "search.yaml");
    writeFileSync(
      config,
      `name: bin\nsuites: [retail]\ntasks: ${tasks}\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 1\nproposals_per_round: 1\ntask_model: sim:default\nseed: 3\n`,
    );
    const runDir = join(work, "run");
    const run = built(["run", config, "--out", runDir]);
    expect(run.stderr).not.toContain("internal");
    expect(run.code).toBe(0);
    const compiled = built(["status", runDir, "--json"]);
    const source = await runCli(["status", runDir, "--json"], { cwd: work });
    expect(compiled.code).toBe(0);
    expect(JSON.parse(compiled.stdout)).toEqual(JSON.parse(source.stdout));
  });

  it("fails with exit 2 and one line on bad input, no stack trace", () => {
    const result = built(["status", join(work, "no-such-run")]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the package", () => {
  it("packs the compiled command, the data it reads and no sources or tests", () => {
    const packed = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
    });
    const files = (JSON.parse(packed) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
      (f) => f.path,
    );
    for (const needed of [
      "package.json",
      "README.md",
      "config/prices.yaml",
      "search-configs/demo.yaml",
      "harnesses/bare/system.md",
    ])
      expect(files).toContain(needed);
    expect(files.some((f) => f.startsWith("data/tau2-retail/"))).toBe(true);
    expect(files.some((f) => f.startsWith("tasks/retail/"))).toBe(true);
    expect(files.some((f) => f.startsWith("src/") || f.startsWith("test/") || f.startsWith("bench/"))).toBe(
      false,
    );
  });
});
