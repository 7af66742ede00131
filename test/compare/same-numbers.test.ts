/**
 * One pair of harnesses, four outputs: `hsearch diff --from --to` (comparisonText), the report and the viewer's
 * compare page (renderComparisonTable, via renderComparePage), and `hsearch compare` in the terminal and in the
 * viewer (pairedSplitText, renderRunComparisonPage) print the same paired interval and the same McNemar p, because
 * all of them take the numbers from src/scoring/pairing.
 */
import { describe, expect, it } from "vitest";
import { runComparisonText } from "../../src/cli/text/compare-runs-text";
import { comparisonText } from "../../src/cli/text/compare-text";
import { paintFor } from "../../src/cli/text/table";
import { pairSplit, type RunComparison } from "../../src/compare";
import { html } from "../../src/report/html/html";
import { renderComparisonTable } from "../../src/report/html/sections/comparison";
import { compareRollouts } from "../../src/report/model/compare";
import { renderComparePage } from "../../src/report/viewer/compare-pages";
import { renderRunComparisonPage } from "../../src/report/viewer/compare-runs-page";
import { mcnemarExact, pairedDifference, pairedIntervalText, pValueText } from "../../src/scoring/pairing";
import type { RolloutRecord } from "../../src/store";

function rollout(side: string, task: number, repeat: number, kind: "blocked" | "feasible", pass: boolean) {
  const task_id = `retail-${kind}-${task}`;
  const scores =
    kind === "blocked" ? { kind, strict_sa: pass } : { kind, solve: pass, false_abstention: !pass };
  return {
    key: `${side}-${task_id}-${repeat}`,
    candidate: side,
    task_id,
    kind,
    family: kind === "blocked" ? "trap" : null,
    suite: "retail",
    repeat,
    scores,
  } as never as RolloutRecord;
}

// 12 blocked episodes (6 tasks × 2 repeats) and 10 feasible: B gains 7 blocked and loses 1; feasible 2 vs 3.
const blockedA = [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1];
const blockedB = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1];
const feasibleA = [1, 1, 0, 0, 1, 1, 1, 0, 1, 0];
const feasibleB = [0, 1, 1, 0, 0, 1, 1, 1, 0, 1];
const side = (name: string, blocked: number[], feasible: number[]) => [
  ...blocked.map((p, i) => rollout(name, Math.floor(i / 2), i % 2, "blocked", p === 1)),
  ...feasible.map((p, i) => rollout(name, Math.floor(i / 2), i % 2, "feasible", p === 1)),
];
const a = side("a", blockedA, feasibleA);
const b = side("b", blockedB, feasibleB);

const links = {
  candidate: (commit: string) => `/candidate/${commit}`,
  rollout: (purpose: string, key: string) => `/rollout/${purpose}/${key}`,
  compare: () => "/compare",
  sideBySide: () => "/side-by-side",
  files: () => "/files",
};
const paint = paintFor({ outTTY: false, env: {} }, false);

describe("every comparison output prints the same paired numbers for the same pair", () => {
  const report = compareRollouts("heldout", "a", "b", a, b);
  const split = pairSplit("heldout", a, b);
  const sideInfo = (dir: string) =>
    ({
      dir,
      id: dir,
      name: dir,
      kind: "eval",
      state: "finished",
      objective: null,
      config: {},
      commit: "0".repeat(40),
      candidate: "evaluated",
      role: "evaluated",
      score: null,
      spent: { rounds: 0, candidates: 1, rollouts: { heldout: 22 }, usd: 0, active_ms: 0 },
    }) as RunComparison["a"];
  const runComparison: RunComparison = {
    a: sideInfo("A"),
    b: sideInfo("B"),
    splits: [split],
    config: [],
    diff: "",
    sameHarness: true,
  };
  const outputs = {
    diff: comparisonText(report, { before: "A", after: "B" }, paint),
    report: String(renderComparisonTable(report, { before: "A", after: "B" })),
    compare: runComparisonText(runComparison, paint),
    viewerDiff: renderComparePage(
      { id: "run-1", name: "run", kind: "search", state: "finished" } as never,
      { commit: "a".repeat(40), round: 0, proposal: 0, proposer: "seed" } as never,
      { commit: "b".repeat(40), round: 1, proposal: 0, proposer: "operators" } as never,
      [report],
      { text: "" },
      links as never,
    ),
    viewerCompare: renderRunComparisonPage(runComparison, html``, links as never),
  };

  it("the expected paired figures: blocked 4/12 → 10/12 with Bonett–Price, McNemar on 1 loss and 7 + 2 gains", () => {
    const blocked = pairedDifference({ both: 3, firstOnly: 1, secondOnly: 7, neither: 1 });
    const strict = report.bySuite.find((g) => g.group === "retail" && g.metric === "strict_sa");
    const row = split.rows.find((r) => r.group === "blocked" && r.metric === "strict_sa");
    expect([strict?.low, strict?.high]).toEqual([blocked.low, blocked.high]);
    expect([row?.low, row?.high]).toEqual([blocked.low, blocked.high]);
    const all = split.rows.find((r) => r.group === "all");
    // Feasible: A-only 3 (pairs 0, 4, 8), B-only 3 (2, 7, 9); overall 1 + 3 losses, 7 + 3 gains.
    expect(all?.mcnemar).toMatchObject({ b: 4, c: 10 });
    expect(report.mcnemar).toEqual({ gains: 10, losses: 4, p_value: mcnemarExact(4, 10).p_value });
  });

  it("shows each group's interval and the overall p in diff, the report, compare and the viewer", () => {
    const strict = report.bySuite.find((g) => g.metric === "strict_sa");
    const solve = report.bySuite.find((g) => g.metric === "solve");
    const texts = [strict, solve].map((g) => pairedIntervalText(g as NonNullable<typeof g>) as string);
    const p = pValueText(report.mcnemar.p_value);
    expect(texts.every((t) => /^[+-]\d\.\d{3} \[[+-]\d\.\d\d, [+-]\d\.\d\d\]$/.test(t))).toBe(true);
    for (const [name, out] of Object.entries(outputs)) {
      // HTML splits the value from the interval with a span: compare the visible text.
      const visible = out.replace(/<[^>]+>/g, "");
      for (const text of texts) expect(visible, `${name}: ${text}`).toContain(text);
      expect(visible, `${name}: p`).toMatch(new RegExp(`p = ${p.replace(".", "\\.")}(?!\\d)`));
    }
  });
});
