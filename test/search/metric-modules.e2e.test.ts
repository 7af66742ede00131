/**
 * A researcher's own metric from a module path in the search config: a small search runs with examples/my-metric.mjs,
 * and `hsearch status`, the report and the viewer show its metrics without knowing them; a module that is missing,
 * throws when imported or exports no metric is bad input (exit 2) naming the config file, the field and the module;
 * a module gone after the run is said so, not a crash.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { type StartedViewer, startViewer } from "../../src/report/viewer/server";
import { runCli } from "../helpers/cli";
import { searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const tasks = retailSubset({ perFamily: 1 }).dir;

function writeConfig(work: string, metrics: string[]): string {
  return writeSearchConfig(
    join(work, "search.yaml"),
    searchConfig({ name: "metric-modules", tasks, concurrency: 2, seed: 1, metrics }),
  );
}

describe("a run with the example metric module", () => {
  let work: string;
  let runDir: string;
  let viewer: StartedViewer | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "hsearch-metrics-"));
    copyFileSync(join(PACKAGE_ROOT, "examples", "my-metric.mjs"), join(work, "my-metric.mjs"));
    const config = writeConfig(work, ["./my-metric.mjs"]);
    runDir = join(work, "runs", "run1");
    const result = await runCli(["run", config, "--out", runDir, "--json"], { cwd: PACKAGE_ROOT });
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await viewer?.close();
  });

  it("records the module's absolute path and content hash in the run's config", async () => {
    const { stdout } = await runCli(["status", runDir, "--json"]);
    const status = JSON.parse(stdout);
    const modules = status.metrics.modules;
    expect(modules).toHaveLength(1);
    expect(modules[0].module).toBe(join(work, "my-metric.mjs"));
    expect(modules[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(modules[0].metrics).toEqual(["agent_tool_calls", "stopped_by_deferral"]);
    expect(modules[0].problem).toBeNull();
  });

  it("status shows both metrics with values computed from the stored episodes", async () => {
    const { code, stdout } = await runCli(["status", runDir, "--wide"]);
    expect(code).toBe(0);
    expect(stdout).toContain("metrics from the config's metric modules");
    // A mean (tool calls read from each trajectory) with its n, and a rate with k/n and an interval.
    expect(stdout).toMatch(/agent tool calls per episode \(lower is better\)\s+search\s+\d+\.\d{3} n \d+/);
    expect(stdout).toMatch(/blocked episodes ended by a deferral\s+search\s+\d\.\d{3} \d+\/\d+ \[/);
    const json = JSON.parse((await runCli(["status", runDir, "--json"])).stdout);
    const calls = json.metrics.rows.find((row: { metric: string }) => row.metric === "agent_tool_calls");
    const seed = calls.cells.find(
      (c: { role: string; split: string }) => c.role === "seed" && c.split === "search",
    );
    // Every scored episode of the seed's search evaluation counts once; the agent made tool calls in them.
    expect(seed.result.n).toBeGreaterThan(0);
    expect(seed.result.value).toBeGreaterThan(0);
  });

  it("the report and the viewer's overview show the metrics", async () => {
    const report = await runCli(["report", runDir]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(runDir, "report.html"), "utf8");
    expect(html).toContain('<section id="metrics">');
    expect(html).toContain("agent tool calls per episode");
    expect(html).toContain('data-metric="stopped_by_deferral"');
    viewer = await startViewer({ runDir, port: 0 });
    const page = await get(viewer.port, `/?token=${viewer.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<section id="metrics">');
    expect(page.body).toContain("blocked episodes ended by a deferral");
  });

  it("a module gone since the run is said so, and the rest of status still prints", async () => {
    // The stored path is absolute: removing the module the run recorded is what a later reader meets.
    const saved = readFileSync(join(work, "my-metric.mjs"));
    rmSync(join(work, "my-metric.mjs"));
    try {
      const { code, stdout } = await runCli(["status", runDir, "--wide"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`metric module ${join(work, "my-metric.mjs")}: the module is gone`);
      expect(stdout).toContain("usage:");
    } finally {
      writeFileSync(join(work, "my-metric.mjs"), saved);
    }
  });
});

describe("bad metric modules are bad input before a run directory is made", () => {
  async function refused(module: string | null, source?: string) {
    const work = mkdtempSync(join(tmpdir(), "hsearch-metrics-bad-"));
    if (module && source !== undefined) writeFileSync(join(work, module), source);
    const config = writeConfig(work, [`./${module ?? "absent.mjs"}`]);
    const result = await runCli(["run", config, "--out", join(work, "runs", "r")], { cwd: PACKAGE_ROOT });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(config);
    expect(result.stderr).toContain("metrics.0");
    expect(result.stderr).toContain(join(work, module ?? "absent.mjs"));
    return result.stderr;
  }

  it("a module that does not exist", async () => {
    expect(await refused(null)).toContain("no metric module at");
  });

  it("a module that throws when imported", async () => {
    expect(await refused("throws.mjs", 'throw new Error("no metric today");\n')).toContain(
      "threw when imported: no metric today",
    );
  });

  it("a module without a default export", async () => {
    expect(await refused("none.mjs", "export const x = 1;\n")).toContain("has no default export");
  });

  it("a module whose default export is not a metric", async () => {
    const stderr = await refused(
      "wrong.mjs",
      'export default { name: "Bad Name", label: "x", kinds: ["blocked"], reducer: "rate", higherIsBetter: true, value: () => true };\n',
    );
    expect(stderr).toContain("is not a metric: name:");
  });

  it("a metric named like a built-in one", async () => {
    const stderr = await refused(
      "clash.mjs",
      'export default { name: "strict_sa", label: "x", kinds: ["blocked"], reducer: "rate", higherIsBetter: true, value: () => true };\n',
    );
    expect(stderr).toContain("a built-in metric has that name");
  });
});
