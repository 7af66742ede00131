import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import type { EpisodeScore } from "../../src/scoring";
import { groupByParent } from "../../src/search/acceptance/pareto-round";
import {
  admitToFront,
  bestByObjective,
  dominates,
  type FrontCandidate,
  groupOutcomes,
  paretoFront,
  pickParent,
} from "../../src/search/pareto/pareto";

function cand(commit: string, round: number, outcomes: number[]): FrontCandidate {
  const map = new Map(outcomes.map((value, i) => [`t${i}`, value]));
  return {
    commit,
    round,
    proposal: 1,
    score: outcomes.reduce((a, b) => a + b, 0) / outcomes.length,
    outcomes: map,
  };
}

const seed = cand("seed", 0, [1, 0, 0, 1]);
const a = cand("a", 1, [1, 1, 0, 1]); // dominates the seed
const b = cand("b", 1, [0, 0, 1, 1]); // best on t2 only
const c = cand("c", 2, [1, 1, 0, 0]); // dominated by a

describe("the pareto front", () => {
  it("keeps the candidates best on at least one task and drops the dominated", () => {
    expect(dominates(a, seed)).toBe(true);
    expect(dominates(a, b)).toBe(false);
    const front = paretoFront([seed, a, b, c]);
    expect(front.map((e) => e.candidate.commit)).toEqual(["a", "b"]);
    // a leads on t0 and t1, b on t2; on t3 every member ties, which says nothing about whom to extend.
    expect(front.map((e) => e.wins)).toEqual([2, 1]);
  });

  it("draws the parent by a seeded rule weighted by the tasks each member is best on", () => {
    const draws = Array.from(
      { length: 400 },
      (_, i) => pickParent([seed, a, b, c], createRng(1, "p", i)).commit,
    );
    expect(new Set(draws)).toEqual(new Set(["a", "b"]));
    const shareOfA = draws.filter((d) => d === "a").length / draws.length;
    expect(shareOfA).toBeGreaterThan(0.58);
    expect(shareOfA).toBeLessThan(0.75);
    expect(pickParent([seed, a, b], createRng(9, "x"))).toEqual(pickParent([seed, a, b], createRng(9, "x")));
  });

  it("admits a candidate no member dominates, and names why one is refused", () => {
    expect(admitToFront(b, [seed, a]).admitted).toBe(true);
    expect(admitToFront(c, [seed, a])).toEqual({
      admitted: false,
      reason: "dominated by a on the search families",
    });
    expect(admitToFront(cand("twin", 3, [1, 1, 0, 1]), [seed, a]).reason).toMatch(/same outcomes .* as a/);
    expect(admitToFront(a, [seed]).reason).toMatch(/dominating 1 member/);
  });

  it("draws a member less often for every proposal made from it that did not enter the front", () => {
    const share = (spentA: number) =>
      Array.from(
        { length: 400 },
        (_, i) => pickParent([{ ...a, spent: spentA }, b], createRng(1, "p", i)).commit,
      ).filter((d) => d === "a").length / 400;
    // Weights 2/(1+spent) against 1: a's share falls from 2/3 to 2/5 after 2 failed proposals, to 1/4 after 5.
    expect(share(0)).toBeGreaterThan(0.58);
    expect(share(2)).toBeGreaterThan(0.32);
    expect(share(2)).toBeLessThan(0.48);
    expect(share(5)).toBeLessThan(0.32);
    // A front whose members tie everywhere (the seed alone) is drawn from uniformly.
    expect(pickParent([seed], createRng(3, "p")).commit).toBe("seed");
  });

  it("admits a proposal only when it gains on its parent in some family (GEPA's gate on what it aimed at)", () => {
    // b gains on the seed in t2 only and loses t0: a trade-off the front keeps although b's score ties the seed's.
    expect(b.score).toBe(seed.score);
    expect(admitToFront(b, [seed, a], seed)).toEqual({
      admitted: true,
      reason: "not dominated: joins the front",
    });
    // c gains on nothing a has: refused by the gate before domination is looked at.
    expect(admitToFront(c, [seed, a], a)).toEqual({
      admitted: false,
      reason: "no gain on its parent in any family (0.5000 < 0.7500)",
    });
    expect(admitToFront(cand("same", 3, [1, 0, 0, 1]), [seed], seed).reason).toBe(
      "no gain on its parent in any family (0.5000 ties 0.5000)",
    );
  });

  it("groups outcomes per family (the front's) or per task, under the objective", () => {
    const blocked = (task: string, family: string, strict: boolean) =>
      ({ kind: "blocked", task_id: task, family, strict_sa: strict }) as unknown as EpisodeScore;
    const feasible = (task: string, solved: boolean) =>
      ({ kind: "feasible", task_id: task, solve: solved }) as unknown as EpisodeScore;
    const scores = [
      blocked("b1", "trap", true),
      blocked("b2", "trap", false),
      blocked("b3", "ambiguous", true),
      feasible("f1", true),
      feasible("f2", true),
    ];
    expect([...groupOutcomes(scores, "joint")]).toEqual([
      ["ambiguous", 1],
      ["feasible", 1],
      ["trap", 0.5],
    ]);
    expect(groupOutcomes(scores, "joint", "task").get("b2")).toBe(0);
    expect(groupOutcomes(scores, "sa-only").has("feasible")).toBe(false);
  });

  it("selects by the objective; on a tie the one with fewer edits since the seed, then the oldest", () => {
    expect(bestByObjective([seed, b, a]).commit).toBe("a");
    expect(bestByObjective([cand("x", 2, [1, 0]), cand("y", 1, [0, 1])]).commit).toBe("y");
    // Same round, same score: the shorter lineage wins over the lower proposal number.
    const deep = { ...cand("deep", 5, [1, 1]), proposal: 1, edits: 5 };
    const shallow = { ...cand("shallow", 5, [1, 1]), proposal: 3, edits: 4 };
    expect(bestByObjective([deep, shallow]).commit).toBe("shallow");
    expect(bestByObjective([{ ...deep, edits: 4 }, shallow]).commit).toBe("deep");
  });
});

describe("the proposal slots of a pareto round", () => {
  it("group by parent in the order each was first drawn, so one proposer call serves each parent", () => {
    expect(groupByParent(["b", "a", "b"])).toEqual([
      { parent: "b", count: 2 },
      { parent: "a", count: 1 },
    ]);
    expect(groupByParent(["seed", "seed", "seed"])).toEqual([{ parent: "seed", count: 3 }]);
  });
});
