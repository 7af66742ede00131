import { describe, expect, it } from "vitest";
import { configDifferences, pairSplit } from "../../src/compare";
import type { RolloutRecord } from "../../src/store";

function rollout(
  side: string,
  task_id: string,
  kind: "blocked" | "feasible",
  pass: boolean | "infra",
  options: { family?: string; repeat?: number } = {},
): RolloutRecord {
  const family = kind === "blocked" ? (options.family ?? "trap") : null;
  const scores =
    pass === "infra"
      ? { kind: "infra_error" }
      : kind === "blocked"
        ? { kind, strict_sa: pass }
        : { kind, solve: pass, false_abstention: !pass };
  const repeat = options.repeat ?? 0;
  return {
    key: `${side}-${task_id}-${repeat}`,
    candidate: side,
    task_id,
    kind,
    family,
    repeat,
    scores,
  } as never;
}

describe("pairSplit", () => {
  const a = [
    rollout("a", "t1", "blocked", false),
    rollout("a", "t2", "blocked", true),
    rollout("a", "t3", "blocked", false, { family: "ambiguous" }),
    rollout("a", "t4", "feasible", true),
    rollout("a", "t5", "feasible", true),
    rollout("a", "t5", "feasible", false, { repeat: 1 }),
    rollout("a", "t6", "feasible", true),
    rollout("a", "t7", "feasible", true),
  ];
  const b = [
    rollout("b", "t1", "blocked", true),
    rollout("b", "t2", "blocked", true),
    rollout("b", "t3", "blocked", true, { family: "ambiguous" }),
    rollout("b", "t4", "feasible", false),
    rollout("b", "t5", "feasible", true),
    rollout("b", "t5", "feasible", true, { repeat: 1 }),
    rollout("b", "t6", "feasible", "infra"),
    rollout("b", "t8", "feasible", true),
  ];
  const split = pairSplit("heldout", a, b);

  it("pairs by task and repeat, leaving out infrastructure errors and tasks one side did not run", () => {
    expect(split.paired).toBe(6);
    expect(split.tasks).toBe(5);
    expect([split.onlyA, split.onlyB]).toEqual([2, 1]);
  });

  it("tables every group: all on the objective's outcome, blocked, feasible, each family", () => {
    const all = split.rows.find((r) => r.group === "all");
    // Pairs (A, B): t1 (0,1), t2 (1,1), t3 (0,1), t4 (1,0), t5#0 (1,1), t5#1 (0,1).
    expect(all?.table).toEqual({ both: 2, firstOnly: 1, secondOnly: 3, neither: 0 });
    expect([all?.a, all?.b]).toEqual([3, 5]);
    expect(all?.delta).toBeCloseTo(2 / 6, 12);
    expect(all?.mcnemar).toEqual({ b: 1, c: 3, discordant: 4, p_value: 0.625 });
    expect(split.rows.map((r) => `${r.group}/${r.metric}`)).toEqual([
      "all/pass",
      "blocked/strict_sa",
      "feasible/solve",
      "feasible/false_abstention",
      "ambiguous/strict_sa",
      "trap/strict_sa",
    ]);
    const abstention = split.rows.find((r) => r.metric === "false_abstention");
    expect(abstention).toMatchObject({ lowerIsBetter: true, a: 1, b: 1 });
  });

  it("lists each flip with both episodes' keys", () => {
    expect(split.flips.map((f) => [f.task_id, f.repeat, f.direction, f.aKey, f.bKey])).toEqual([
      ["t1", 0, "gain", "a-t1-0", "b-t1-0"],
      ["t3", 0, "gain", "a-t3-0", "b-t3-0"],
      ["t4", 0, "loss", "a-t4-0", "b-t4-0"],
      ["t5", 1, "gain", "a-t5-1", "b-t5-1"],
    ]);
  });
});

describe("configDifferences", () => {
  it("names each differing field by its dotted path; lists compare whole; absent fields are null", () => {
    expect(
      configDifferences(
        { objective: "sa-only", acceptance: { rule: "greater" }, suites: ["retail"], seed: 1, extra: 2 },
        { objective: "joint", acceptance: { rule: "paired", alpha: 0.1 }, suites: ["retail"], seed: 1 },
      ),
    ).toEqual([
      { field: "acceptance.alpha", a: null, b: "0.1" },
      { field: "acceptance.rule", a: '"greater"', b: '"paired"' },
      { field: "extra", a: "2", b: null },
      { field: "objective", a: '"sa-only"', b: '"joint"' },
    ]);
    expect(configDifferences({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
  });
});
