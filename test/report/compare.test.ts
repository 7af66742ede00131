import { describe, expect, it } from "vitest";
import { compareRollouts, unpairedDifference, wilson } from "../../src/report/model/compare";
import { pairedDifference } from "../../src/scoring/pairing";
import type { RolloutRecord } from "../../src/store";

function rollout(
  candidate: string,
  task_id: string,
  kind: "blocked" | "feasible",
  pass: boolean,
  family: string | null = kind === "blocked" ? "trap" : null,
  // The stored suite, as the rollout's trajectory named it; the test ids say it too, except where a test says not.
  suite = task_id.split("-")[0],
): RolloutRecord {
  const scores =
    kind === "blocked" ? { kind, strict_sa: pass } : { kind, solve: pass, false_abstention: !pass };
  return {
    key: `${candidate}-${task_id}`,
    candidate,
    task_id,
    kind,
    family,
    suite,
    repeat: 0,
    scores,
  } as never;
}

describe("wilson and newcombe intervals (independent rates: two stored summaries)", () => {
  it("match Newcombe (1998): 56/70 − 48/80 has the 95% hybrid score interval 0.0524 to 0.3339", () => {
    const d = unpairedDifference(wilson(48, 80), wilson(56, 70));
    expect(d.delta).toBeCloseTo(0.2, 10);
    expect(d.low).toBeCloseTo(0.0524, 4);
    expect(d.high).toBeCloseTo(0.3339, 4);
    expect(d.clear).toBe(true);
    const w = wilson(0, 10);
    expect(w.low).toBe(0);
    expect(w.high).toBeCloseTo(0.2775, 4);
  });

  it("call a small difference unclear when its interval spans 0, and handle empty groups", () => {
    expect(unpairedDifference(wilson(5, 10), wilson(6, 10)).clear).toBe(false);
    expect(unpairedDifference(wilson(0, 0), wilson(1, 2))).toMatchObject({ delta: null, clear: false });
  });
});

describe("compareRollouts", () => {
  const before = [
    rollout("a", "retail-1", "blocked", false),
    rollout("a", "retail-2", "blocked", true),
    rollout("a", "retail-3", "feasible", true),
    rollout("a", "terminal-1", "blocked", false, "ambiguous"),
    rollout("a", "terminal-2", "feasible", false),
  ];
  const after = [
    rollout("b", "retail-1", "blocked", true),
    rollout("b", "retail-2", "blocked", true),
    rollout("b", "retail-3", "feasible", false),
    rollout("b", "terminal-1", "blocked", true, "ambiguous"),
    rollout("b", "terminal-2", "feasible", false),
    rollout("b", "terminal-9", "feasible", true),
  ];
  const c = compareRollouts("search", "a", "b", before, after);

  it("pairs episodes both harnesses ran and lists the flips with both rollouts", () => {
    expect(c.paired).toBe(5);
    expect(c.flips.map((f) => [f.task_id, f.direction, f.beforeKey, f.afterKey])).toEqual([
      ["retail-1", "gain", "a-retail-1", "b-retail-1"],
      ["retail-3", "loss", "a-retail-3", "b-retail-3"],
      ["terminal-1", "gain", "a-terminal-1", "b-terminal-1"],
    ]);
    expect(c.mcnemar).toEqual({ gains: 2, losses: 1, p_value: 1 });
    // The objective's outcome over all five pairs: 2/5 → 3/5, paired.
    expect(c.pass).toMatchObject({ before: { k: 2, n: 5 }, after: { k: 3, n: 5 }, delta: 0.2 });
    const pass = pairedDifference({ both: 1, firstOnly: 1, secondOnly: 2, neither: 1 });
    expect([c.pass.low, c.pass.high]).toEqual([pass.low, pass.high]);
  });

  it("splits by suite (and all) and by family, with k/n on both sides", () => {
    const row = (group: string, metric: string) =>
      c.bySuite.find((g) => g.group === group && g.metric === metric);
    expect(row("retail", "strict_sa")).toMatchObject({
      before: { k: 1, n: 2 },
      after: { k: 2, n: 2 },
      delta: 0.5,
    });
    expect(row("terminal", "strict_sa")).toMatchObject({ before: { k: 0, n: 1 }, after: { k: 1, n: 1 } });
    expect(row("all", "solve")).toMatchObject({ before: { k: 1, n: 2 }, after: { k: 0, n: 2 } });
    expect(row("retail", "false_abstention")?.lowerIsBetter).toBe(true);
    // The interval is the paired one of the same episodes: retail blocked pairs are (0,1), (1,1).
    const retail = row("retail", "strict_sa");
    const paired = pairedDifference({ both: 1, firstOnly: 0, secondOnly: 1, neither: 0 });
    expect([retail?.low, retail?.high]).toEqual([paired.low, paired.high]);
    expect(retail?.mcnemar).toMatchObject({ b: 0, c: 1, p_value: 1 });
    expect(c.byFamily.map((g) => g.group)).toEqual(["ambiguous", "trap"]);
  });
});

describe("compareRollouts groups by the suite each rollout stored", () => {
  it("a plug-in suite's task named like a built-in one is counted under its own suite, not its id's prefix", () => {
    const side = (candidate: string, pass: boolean) => [
      rollout(candidate, "retail-1", "blocked", pass),
      rollout(candidate, "retail-lookalike", "blocked", !pass, "trap", "acme"),
    ];
    const c = compareRollouts("search", "a", "b", side("a", false), side("b", true));
    expect(c.bySuite.map((g) => [g.group, g.metric, g.before.n])).toEqual([
      ["acme", "strict_sa", 1],
      ["retail", "strict_sa", 1],
      ["all", "strict_sa", 2],
    ]);
    expect(c.bySuite.find((g) => g.group === "acme")).toMatchObject({ before: { k: 1 }, after: { k: 0 } });
  });
});
