/**
 * Issue 24's "done when": a custom suite, a custom proposer and a custom metric, each from a module path in one config,
 * run in one search, and the metric shows in `status` and the report without those files knowing it. The example
 * modules (examples/my-suite.mjs, my-proposer.mjs, my-metric.mjs) are copied beside the config, as a researcher's
 * project would hold them.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { startViewer } from "../../src/report/viewer/server";
import { runCli } from "../helpers/cli";
import { searchConfig, writeSearchConfig } from "../helpers/search-config";

const work = mkdtempSync(join(tmpdir(), "hsearch-all-plugins-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a suite, a proposer and a metric of one's own in one search", () => {
  it("runs, selects, and shows the metric for the plug-in suite's episodes", async () => {
    for (const file of ["my-suite.mjs", "my-proposer.mjs", "my-metric.mjs"])
      copyFileSync(join(PACKAGE_ROOT, "examples", file), join(work, file));
    const config = writeSearchConfig(
      join(work, "search.yaml"),
      searchConfig({
        name: "all-plugins",
        suites: ["./my-suite.mjs"],
        seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
        rounds: 2,
        proposals_per_round: 2,
        meta_model: "./my-proposer.mjs",
        metrics: ["./my-metric.mjs"],
        seed: 3,
      }),
    );
    const runDir = join(work, "run");
    const run = await runCli(["run", config, "--out", runDir], { cwd: work });
    expect(run.code, run.stderr).toBe(0);

    const status = JSON.parse((await runCli(["status", runDir, "--json"])).stdout);
    expect(status.state).toBe("finished");
    // Proposals came from the module proposer, named as such.
    const opened = openRun(runDir);
    try {
      const proposers = new Set(
        opened
          .candidates()
          .filter((c) => c.round > 0)
          .map((c) => c.proposer),
      );
      expect([...proposers]).toEqual(["module:cue-rules"]);
      // The library reads the same metric table `status --json` prints.
      expect((await opened.statusWithMetrics()).metrics).toEqual(status.metrics);
      expect(opened.status().metrics).toBeUndefined();
    } finally {
      opened.close();
    }
    // The metric module's values over the plug-in suite's stored episodes: 6 blocked search tasks for the rate.
    const modules = status.metrics.modules;
    expect(modules.map((m: { metrics: string[] }) => m.metrics)).toEqual([
      ["agent_tool_calls", "stopped_by_deferral"],
    ]);
    const deferral = status.metrics.rows.find(
      (row: { metric: string }) => row.metric === "stopped_by_deferral",
    );
    const seedSearch = deferral.cells.find(
      (cell: { role: string; split: string }) => cell.role === "seed" && cell.split === "search",
    );
    expect(seedSearch.result.n).toBe(6);

    const text = await runCli(["status", runDir, "--wide"]);
    expect(text.stdout).toContain("blocked episodes ended by a deferral");
    const report = await runCli(["report", runDir]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(runDir, "report.html"), "utf8");
    expect(html).toContain('data-metric="agent_tool_calls"');
    expect(html).toContain('<div class="example" data-suite="kv">');

    // The viewer's rollout table names the plug-in suite, not the built-in suite its ids would suggest.
    const viewer = await startViewer({ runDir, port: 0 });
    try {
      const seed = status.rounds[0].proposals[0].commit;
      const page = await fetch(`http://127.0.0.1:${viewer.port}/candidates/${seed}`, {
        headers: { cookie: `hsearch_view_${viewer.port}=${viewer.token}` },
      });
      expect(page.status).toBe(200);
      const body = await page.text();
      const suiteCells = [...body.matchAll(/<\/a><\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]);
      expect(suiteCells.length).toBeGreaterThan(0);
      expect(new Set(suiteCells)).toEqual(new Set(["kv"]));
    } finally {
      await viewer.close();
    }
  }, 300_000);
});
