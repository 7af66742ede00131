import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import type { EpisodeScore } from "../../src/scoring";
import { nextLook, type RaceRule, raceLook, wealth } from "../../src/search/acceptance/race-halving";
import { pairedDifferences } from "../../src/search/acceptance/race-round";
import {
  crossesRung,
  disagreement,
  halvingDrops,
  informativeWeights,
  weightedOrder,
} from "../../src/search/plan/race-plan";

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

/** A weighted race: the order drawn with weights (informative), each draw importance-weighted in the e-processes. */
function weightedRace(
  values: readonly number[],
  weights: readonly number[],
  rule: RaceRule,
  replicate: number,
) {
  const ids = values.map((_, i) => `t${i}`);
  const schedule = weightedOrder(replicate, 1, ids, new Map(ids.map((id, i) => [id, weights[i] as number])));
  const ordered = schedule.order.map((id) => values[Number(id.slice(1))] as number);
  let n = 0;
  for (;;) {
    n = nextLook(n, ordered.length, rule.batch);
    const look = raceLook(ordered.slice(0, n), ordered.length, rule, schedule.weights ?? undefined);
    if (look.verdict !== "more") return look;
  }
}

describe("the race in an informative order", () => {
  const REPLICATES = 2000;
  // The adversarial case for reordering: the proposal gains on the 20 tasks earlier candidates disagreed on (drawn
  // 4× likelier) and loses on 20 tasks every earlier candidate agreed on; its mean difference over the split is 0.
  const values = population(128, 20, 20);
  const weights = values.map((_, i) => (i < 20 ? 4 : 1));

  it("A/A with the gains where earlier candidates disagreed: accepted in at most α/2 of races", () => {
    let accepted = 0;
    for (let r = 0; r < REPLICATES; r++)
      if (weightedRace(values, weights, RULE, r).verdict === "accepted") accepted++;
    expect(accepted / REPLICATES).toBeLessThanOrEqual(RULE.alpha / 2);
  });

  it("without the importance weights the same order would accept that proposal far too often", () => {
    // The reason race.ts weights each draw: an order that favours informative tasks, read as if it were uniform.
    let accepted = 0;
    for (let r = 0; r < REPLICATES; r++) {
      const ids = values.map((_, i) => `t${i}`);
      const schedule = weightedOrder(r, 1, ids, new Map(ids.map((id, i) => [id, weights[i] as number])));
      const ordered = schedule.order.map((id) => values[Number(id.slice(1))] as number);
      let n = 0;
      for (;;) {
        n = nextLook(n, ordered.length, RULE.batch);
        const look = raceLook(ordered.slice(0, n), ordered.length, RULE);
        if (look.verdict === "more") continue;
        if (look.verdict === "accepted") accepted++;
        break;
      }
    }
    expect(accepted / REPLICATES).toBeGreaterThan(RULE.alpha);
  });

  it("a proposal better by the margin is rejected in at most α/2 of races, its gains anywhere", () => {
    // Mean 7/128 ≈ 0.055 ≥ 0.05: the gains among the light tasks (the weighting's worst case) or the heavy ones.
    for (const heavyFirst of [true, false]) {
      const gain = population(128, 7, 0);
      const w = gain.map((_, i) => (i < 40 === heavyFirst ? 1 : 4));
      let rejected = 0;
      for (let r = 0; r < REPLICATES; r++)
        if (weightedRace(gain, w, RULE, r).verdict === "rejected") rejected++;
      expect(rejected / REPLICATES).toBeLessThanOrEqual(RULE.alpha / 2);
    }
  });

  it("equal weights are the uniform race exactly; the minimum holds however heavy the informative tasks", () => {
    const flat = population(128, 10, 0);
    expect(wealth(flat.slice(0, 40), 128, 0, "above", new Array(128).fill(3))).toBeCloseTo(
      wealth(flat.slice(0, 40), 128, 0, "above"),
      12,
    );
    const strong = population(128, 60, 0);
    const w = strong.map((_, i) => (i < 60 ? 50 : 1));
    for (let r = 0; r < 200; r++) {
      const look = weightedRace(strong, w, RULE, r);
      expect(look.verdict).toBe("accepted");
      expect(look.n).toBeGreaterThanOrEqual(RULE.minTasks);
    }
  });
});

describe("the round's plan: informative weights, weighted order, halving", () => {
  it("disagreement is the spread of earlier outcomes; fewer than two outcomes tell nothing", () => {
    expect(disagreement([])).toBe(0);
    expect(disagreement([1])).toBe(0);
    expect(disagreement([1, 1, 1])).toBe(0);
    expect(disagreement([0, 0, 0])).toBe(0);
    expect(disagreement([1, 0, 1])).toBe(1);
    expect(disagreement([0.5, 1])).toBe(0.5);
    const outcomes = new Map([
      ["a", [1, 0]],
      ["b", [1, 1]],
      ["c", [0.5, 1, 1]],
    ]);
    expect(informativeWeights(["a", "b", "c", "d"], outcomes, 4)).toEqual([4, 1, 2.5, 1]);
  });

  it("the weighted order is seeded, a permutation, and draws heavy tasks earlier", () => {
    const ids = Array.from({ length: 64 }, (_, i) => `t${i}`);
    const heavy = new Set(ids.slice(0, 16));
    const weightOf = new Map(ids.map((id) => [id, heavy.has(id) ? 4 : 1]));
    const a = weightedOrder(3, 2, ids, weightOf);
    expect(weightedOrder(3, 2, ids, weightOf)).toEqual(a);
    expect(weightedOrder(3, 3, ids, weightOf).order).not.toEqual(a.order);
    expect([...a.order].sort()).toEqual([...ids].sort());
    expect(a.weights).toEqual(a.order.map((id) => weightOf.get(id)));
    // Over many seeds, heavy tasks take more than their 16/64 share of the first 16 draws.
    let early = 0;
    for (let seed = 0; seed < 200; seed++)
      early += weightedOrder(seed, 1, ids, weightOf)
        .order.slice(0, 16)
        .filter((id) => heavy.has(id)).length;
    expect(early / (200 * 16)).toBeGreaterThan(0.45);
    // Nothing to favour: the base order itself, uniform.
    expect(weightedOrder(3, 2, ids, new Map())).toEqual({ order: ids, weights: null });
  });

  it("halving rungs at first, 2·first, 4·first …, crossed by the look that reaches them", () => {
    expect(crossesRung(0, 8, 16)).toBe(false);
    expect(crossesRung(8, 16, 16)).toBe(true);
    expect(crossesRung(16, 24, 16)).toBe(false);
    expect(crossesRung(24, 32, 16)).toBe(true);
    expect(crossesRung(32, 40, 16)).toBe(false);
    expect(crossesRung(56, 64, 16)).toBe(true);
    expect(crossesRung(0, 128, 16)).toBe(true);
  });

  it("halving keeps the best ⌈keep·m⌉ by mean difference, ties to the lower proposal number", () => {
    const racing = [
      { proposal: 1, difference: 0 },
      { proposal: 2, difference: 0.1 },
      { proposal: 3, difference: 0 },
    ];
    expect(halvingDrops(racing, 0.5)).toEqual([3]);
    expect(halvingDrops(racing, 0.3)).toEqual([1, 3]);
    expect(halvingDrops([{ proposal: 4, difference: -1 }], 0.1)).toEqual([]);
    expect(
      halvingDrops(
        Array.from({ length: 30 }, (_, i) => ({ proposal: i, difference: 0 })),
        0.1,
      ),
    ).toHaveLength(27);
  });
});
