/**
 * A new built-in metric is one catalogue entry: with one entry added to BUILTIN_METRICS (and nothing else changed),
 * its value is in the stored summary, `hsearch eval` (text and --json), `hsearch status` of the evaluation and the
 * HTML report; marked per suite, it is a column of eval's per-suite tables and a row of the paired comparisons.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type * as Builtin from "../../src/scoring/metrics/builtin";
import { retailSubset } from "../helpers/task-subset";

type Score = Parameters<Builtin.BuiltinMetric["scoreValue"]>[0];
// Deferred after the decisive step (not at it): a metric no table knows by name. Hoisted with the mock below.
const { scoreValue } = vi.hoisted(() => ({
  scoreValue: (score: Score) =>
    score.kind === "blocked"
      ? score.deferral_step !== null && score.deferral_step > score.decisive_step
      : null,
}));

vi.mock("../../src/scoring/metrics/builtin", async (importOriginal) => {
  const original = await importOriginal<typeof Builtin>();
  const entry: Builtin.BuiltinMetric = {
    name: "late_deferral",
    label: "late deferral",
    short: "late defer",
    kinds: ["blocked"],
    reducer: "rate",
    higherIsBetter: false,
    bySuite: true,
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

    // A mixed selection's per-suite tables: the stored episodes split over two suites.
    const { evalReport, loadStoredEvaluation } = await import("../../src/report");
    const { renderEvalReport } = await import("../../src/cli/text/eval-text");
    const { renderEvaluationBody } = await import("../../src/report/html/eval-page");
    const { compareRollouts } = await import("../../src/report/model/compare");
    const { pairSplit } = await import("../../src/compare");
    const { openRunStore } = await import("../../src/store");
    const store = openRunStore(dir, { readonly: true });
    try {
      const stored = loadStoredEvaluation(store);
      // Every other task of each kind in each suite, so both suites have blocked episodes.
      const suiteOf = new Map<string, string>();
      for (const kind of ["blocked", "feasible"]) {
        const ids = [...new Set(stored.rollouts.filter((r) => r.kind === kind).map((r) => r.task_id))];
        for (const [i, id] of ids.entries()) suiteOf.set(id, i % 2 === 0 ? "retail" : "other");
      }
      const mixed = evalReport({
        harness: "abandon",
        model: "sim",
        seed: 0,
        repeats: 1,
        scores: stored.rollouts.map((r) => r.scores),
        suiteOf,
        usage: [],
      });
      const late = (suite: string) => {
        const episodes = stored.rollouts.filter(
          (r) => suiteOf.get(r.task_id) === suite && r.scores.kind === "blocked",
        );
        return {
          k: episodes.filter((r) => scoreValue(r.scores as Score) === true).length,
          n: episodes.length,
        };
      };
      expect(mixed.by_suite.retail?.late_deferral).toMatchObject(late("retail"));
      expect(mixed.by_suite.other?.late_deferral).toMatchObject(late("other"));
      const text = renderEvalReport(mixed).split("\n");
      expect(text.find((line) => line.startsWith("suite"))).toContain("late defer");
      const { k, n } = late("other");
      expect(n).toBeGreaterThan(0);
      expect(text.find((line) => line.startsWith("other"))).toContain(`${k}/${n}`);
      const body = String(renderEvaluationBody({ ...stored, report: mixed }, { usage: stored.usage }));
      expect(body.slice(body.indexOf('id="suites"'))).toContain('<th class="num">late deferral</th>');

      // diff, the report and the viewer pair by suite; compare by kind of episode.
      const comparison = compareRollouts("search", "a", "b", stored.rollouts, stored.rollouts);
      expect(comparison.bySuite.map((g) => g.metric)).toContain("late_deferral");
      const split = pairSplit("search", stored.rollouts, stored.rollouts);
      expect(split.rows).toContainEqual(
        expect.objectContaining({ group: "blocked", metric: "late_deferral" }),
      );
    } finally {
      store.close();
    }
  }, 300_000);
});
