import { describe, expect, it } from "vitest";
import { type DiagnosticCandidate, diagnosticsSvgs } from "../../src/report/diagnostics-plot";

const candidate = (
  id: string,
  commit: string,
  round: number,
  objective: number,
  accepted = false,
): DiagnosticCandidate => ({
  id,
  commit,
  round,
  accepted,
  metrics: {
    objective,
    strict_sa: objective - 0.1,
    relaxed_sa: objective,
    solve: 0.9,
    false_abstention: 0.05,
    absrec1: 0.3,
  },
  tokens: 1000 * (round + 1),
  usd: 0.01 * (round + 1),
  seconds: 5 * (round + 1),
});

describe("round diagnostics", () => {
  const candidates = [
    candidate("seed", "a".repeat(40), 0, 0.5),
    candidate("r1p1", "b".repeat(40), 1, 0.6, true),
    candidate("<r1p2>", "c".repeat(40), 1, 0.4),
  ];
  const rounds = [
    { round: 0, incumbent: "a".repeat(40), heldout: null },
    { round: 1, incumbent: "b".repeat(40), heldout: 0.55 },
  ];
  const svgs = diagnosticsSvgs(candidates, rounds, (commit) => `/candidates/${commit}`);

  it("draws one panel per metric plus tokens and cost, with the incumbent's line and held-out dashed", () => {
    expect(svgs).toHaveLength(9);
    for (const label of [
      "objective",
      "strict SA",
      "relaxed SA",
      "feasible solve",
      "false abstention",
      "AbsRec@1",
      "tokens",
      "cost",
    ])
      expect(svgs.some((svg) => svg.includes(label))).toBe(true);
    expect(svgs[0]).toContain('class="inc"');
    expect(svgs[0]).toContain('class="held"');
    expect(svgs[0]).toContain("held-out dashed");
  });

  it("links every point to its candidate and escapes every label", () => {
    expect(svgs[0]).toContain(`<a href="/candidates/${"b".repeat(40)}"><circle`);
    expect(svgs[6]).toContain(`<a href="/candidates/${"c".repeat(40)}"><rect`);
    expect(svgs.join("")).not.toContain("<r1p2>");
    expect(svgs.join("")).toContain("&lt;r1p2&gt;");
    expect(diagnosticsSvgs(candidates, rounds).join("")).not.toContain("<a ");
  });
});
