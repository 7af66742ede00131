import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import type { EpisodeScore } from "../../src/scoring";
import { nextLook, type RaceRule, raceLook, wealth } from "../../src/search/race";
import { pairedDifferences } from "../../src/search/race-round";

const RULE: RaceRule = { alpha: 0.2, batch: 8, minTasks: 32, margin: 0.05 };

/** A population of N paired differences: `plus` of +1, `minus` of −1, the rest 0. */
function population(n: number, plus: number, minus: number): number[] {
  return Array.from({ length: n }, (_, i) => (i < plus ? 1 : i < plus + minus ? -1 : 0));
}

/** One race over a seeded order of the population, look by look as raceRound takes them. */
function race(values: readonly number[], rule: RaceRule, replicate: number) {
  const order = createRng(11, "race-test", replicate).shuffle(values);
  let n = 0;
  for (;;) {
    n = nextLook(n, order.length, rule.batch);
    const look = raceLook(order.slice(0, n), order.length, rule);
    if (look.verdict !== "more") return look;
  }
}

describe("the race's confidence sequence", () => {
  const REPLICATES = 2000;

  it("A/A: a proposal no better than the incumbent is accepted in at most α/2 of races", () => {
    // Populations with mean difference exactly 0: few discordant tasks (the simulator's usual case) and many.
    for (const [plus, minus] of [
      [6, 6],
      [20, 20],
      [45, 45],
    ] as const) {
      const values = population(128, plus, minus);
      let accepted = 0;
      for (let r = 0; r < REPLICATES; r++) if (race(values, RULE, r).verdict === "accepted") accepted++;
      expect(accepted / REPLICATES).toBeLessThanOrEqual(RULE.alpha / 2);
    }
  });

  it("a proposal that is no better wins no race on looks after every batch, even at α = 0.5", () => {
    // Many looks (batch 1) at a loose α: optional stopping would inflate a fixed-sample test far above α/2.
    const rule = { ...RULE, alpha: 0.5, batch: 1, minTasks: 1 };
    const values = population(64, 16, 17);
    let accepted = 0;
    for (let r = 0; r < REPLICATES; r++) if (race(values, rule, r).verdict === "accepted") accepted++;
    expect(accepted / REPLICATES).toBeLessThanOrEqual(rule.alpha / 2);
  });

  it("a proposal better by the margin is rejected in at most α/2 of races", () => {
    // Mean 7/128 ≈ 0.055 ≥ margin 0.05.
    for (const [plus, minus] of [
      [7, 0],
      [17, 10],
    ] as const) {
      const values = population(128, plus, minus);
      let rejected = 0;
      for (let r = 0; r < REPLICATES; r++) if (race(values, RULE, r).verdict === "rejected") rejected++;
      expect(rejected / REPLICATES).toBeLessThanOrEqual(RULE.alpha / 2);
    }
  });

  it("decides clear cases early: a large gain is accepted, an unchanged or worse proposal rejected", () => {
    const gain = race(population(128, 30, 0), RULE, 1);
    expect(gain.verdict).toBe("accepted");
    expect(gain.n).toBeLessThan(64);
    const unchanged = race(population(128, 0, 0), RULE, 1);
    expect(unchanged.verdict).toBe("rejected");
    expect(unchanged.n).toBeLessThan(128);
    const worse = race(population(128, 0, 40), RULE, 1);
    expect(worse.verdict).toBe("rejected");
    expect(worse.n).toBeLessThanOrEqual(RULE.batch * 3);
  });

  it("never accepts on fewer tasks than the minimum, however strong the evidence", () => {
    const ahead = new Array<number>(24).fill(1);
    const look = raceLook(ahead, 128, RULE);
    expect(look.eBetter).toBeGreaterThan(2 / RULE.alpha);
    expect(look.verdict).toBe("more");
    expect(raceLook(new Array<number>(32).fill(1), 128, RULE).verdict).toBe("accepted");
    for (let r = 0; r < 200; r++) {
      const result = race(population(128, 60, 0), RULE, r);
      expect(result.verdict).toBe("accepted");
      expect(result.n).toBeGreaterThanOrEqual(RULE.minTasks);
    }
  });

  it("with every task scored, the sign of the mean decides (the full protocol's greater)", () => {
    expect(raceLook([1, 0, 0, 0], 4, RULE).verdict).toBe("accepted");
    expect(raceLook([1, -1, 0, 0], 4, RULE).verdict).toBe("rejected");
    expect(raceLook([0, 0, 0, 0], 4, RULE).verdict).toBe("rejected");
  });

  it("a null the drawn tasks make impossible is refuted for certain", () => {
    // 6 of 8 tasks ahead: the 2 left cannot bring the mean to ≤ 0.
    expect(wealth([1, 1, 1, 1, 1, 1], 8, 0, "above")).toBe(Number.POSITIVE_INFINITY);
    expect(wealth([], 8, 0, "above")).toBe(1);
  });
});

describe("paired differences in the race order", () => {
  const score = (task: string, kind: "blocked" | "feasible", value: boolean, repeat = 0) =>
    ({
      task_id: task,
      kind,
      repeat,
      strict_sa: value,
      solve: value,
    }) as unknown as EpisodeScore;

  it("per task in the given order, mean over the repeats both arms scored; unpaired tasks differ by 0", () => {
    const incumbent = [
      score("a", "blocked", false),
      score("b", "feasible", true),
      score("c", "blocked", true),
    ];
    const proposal = [
      score("a", "blocked", true),
      score("b", "feasible", false),
      score("c", "blocked", true),
      score("d", "blocked", true),
    ];
    expect(pairedDifferences(["b", "a", "d", "c"], 4, incumbent, proposal, "joint")).toEqual([-1, 1, 0, 0]);
    expect(pairedDifferences(["b", "a", "d", "c"], 2, incumbent, proposal, "joint")).toEqual([-1, 1]);
    // SA-only does not count feasible tasks.
    expect(pairedDifferences(["b", "a"], 2, incumbent, proposal, "sa-only")).toEqual([0, 1]);
  });
});
