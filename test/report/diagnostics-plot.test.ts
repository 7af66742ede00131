import { describe, expect, it } from "vitest";
import {
  type DiagnosticCandidate,
  type DiagnosticRound,
  diagnosticsSvgs,
} from "../../src/report/html/diagnostics-plot";

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
  const rounds: DiagnosticRound[] = [
    {
      round: 0,
      incumbent: "a".repeat(40),
      heldout: null,
      independent: null,
      failures: { n: 8, modes: { missed_recognition: 3, wrong_reason: 1 } },
    },
    {
      round: 1,
      incumbent: "b".repeat(40),
      heldout: { objective: 0.55, strict_sa: 0.5 },
      independent: { solve: 0.8 },
      failures: { n: 8, modes: { missed_recognition: 1 } },
    },
  ];
  const svgs = diagnosticsSvgs(candidates, rounds, (commit) => `/candidates/${commit}`);

  it("draws one panel per metric plus failure modes, tokens, cost and time, with the incumbent's line and held-out dashed", () => {
    expect(svgs).toHaveLength(10);
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
    expect(svgs[0]).not.toContain('class="indep"');
  });

  it("draws held-out and independent results per round where the diagnostic measured them", () => {
    const solve = svgs[3] as string;
    expect(solve).toContain("independent dotted");
    expect(solve).toContain('class="indep"');
    expect(solve).not.toContain('class="held"');
    expect(svgs[1]).toContain('class="held"');
  });

  it("stacks each round's blocked failures by mode, linked to the round's incumbent", () => {
    const modes = svgs[6] as string;
    expect(modes).toContain("blocked failures of the incumbent, by mode");
    expect(modes.match(/class="mode missed_recognition"/g)).toHaveLength(2);
    expect(modes.match(/class="mode wrong_reason"/g)).toHaveLength(1);
    expect(modes).toContain("round 0: missed recognition 3 of 8 blocked");
    expect(modes).toContain(`<a href="/candidates/${"b".repeat(40)}"><rect`);
    // The bars share one scale: 3 failures are three times as tall as 1.
    const heights = [...modes.matchAll(/class="mode missed_recognition"/g)].map((m) => {
      const rect = modes.slice(modes.lastIndexOf("<rect", m.index), m.index);
      return Number(/height="([\d.]+)"/.exec(rect)?.[1]);
    });
    expect(heights[0]).toBeCloseTo(3 * (heights[1] as number), 0);
  });

  it("links every point to its candidate and escapes every label", () => {
    expect(svgs[0]).toContain(`<a href="/candidates/${"b".repeat(40)}"><circle`);
    expect(svgs[7]).toContain(`<a href="/candidates/${"c".repeat(40)}"><rect`);
    expect(svgs.join("")).not.toContain("<r1p2>");
    expect(svgs.join("")).toContain("&lt;r1p2&gt;");
    expect(diagnosticsSvgs(candidates, rounds).join("")).not.toContain("<a ");
  });
});
