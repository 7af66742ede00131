/**
 * A new built-in metric is one catalogue entry: with one entry added to BUILTIN_METRICS (and nothing else changed),
 * its value is in the stored summary, `hsearch eval` (text and --json), `hsearch status` of the evaluation and the
 * HTML report.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type * as Builtin from "../../src/scoring/metrics/builtin";
import { retailSubset } from "../helpers/task-subset";

vi.mock("../../src/scoring/metrics/builtin", async (importOriginal) => {
  const original = await importOriginal<typeof Builtin>();
  type Score = Parameters<Builtin.BuiltinMetric["scoreValue"]>[0];
  // Deferred after the decisive step (not at it): a metric no table knows by name.
  const scoreValue = (score: Score) =>
    score.kind === "blocked"
      ? score.deferral_step !== null && score.deferral_step > score.decisive_step
      : null;
  const entry: Builtin.BuiltinMetric = {
    name: "late_deferral",
    label: "late deferral",
    short: "late defer",
    kinds: ["blocked"],
    reducer: "rate",
    higherIsBetter: false,
    scoreValue,
    value: (episode) => scoreValue(episode.score),
  };
  return { ...original, BUILTIN_METRICS: [...original.BUILTIN_METRICS, entry] };
});

describe("a metric added to the catalogue", () => {
  it("shows its values in eval, status and the report", async () => {
    // Files share a worker's module cache: load the CLI afresh, so every module sees the extended catalogue.
    vi.resetModules();
    const { runCli } = await import("../helpers/cli");
    const work = mkdtempSync(join(tmpdir(), "hsearch-catalogue-"));
    const tasks = retailSubset({ perFamily: 2, heldoutPerFamily: 0, independent: 0 }).dir;
    const dir = join(work, "eval");
    const harness = join(PACKAGE_ROOT, "harnesses", "abandon");
    const json = await runCli(["eval", "--harness", harness, "--tasks", tasks, "--out", dir, "--json"], {
      cwd: work,
    });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      summary: {
        blocked: Record<string, unknown> & { by_family: Record<string, Record<string, unknown> | null> };
      };
    };
    const value = report.summary.blocked.late_deferral;
    expect(typeof value).toBe("number");
    for (const rates of Object.values(report.summary.blocked.by_family))
      if (rates) expect(typeof rates.late_deferral).toBe("number");

    const status = await runCli(["status", dir, "--wide"], { cwd: work });
    expect(status.code, status.stderr).toBe(0);
    const header = status.stdout.split("\n").find((line) => line.startsWith("blocked"));
    expect(header).toContain("late defer");
    const all = status.stdout.split("\n").find((line) => line.startsWith("all"));
    expect(all).toContain((value as number).toFixed(3));
    const statusJson = JSON.parse((await runCli(["status", dir, "--json"], { cwd: work })).stdout);
    expect(statusJson.summary.blocked.late_deferral).toBe(value);

    const html = await runCli(["report", dir], { cwd: work });
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(dir, "report.html"), "utf8");
    expect(page).toContain(">late defer</th>");
  }, 300_000);
});
