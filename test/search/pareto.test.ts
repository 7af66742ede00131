import { describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import {
  admitToFront,
  bestByObjective,
  dominates,
  type FrontCandidate,
  paretoFront,
  pickParent,
} from "../../src/search/pareto";

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
    // a is best on t0, t1, t3; b on t2 and t3.
    expect(front.map((e) => e.wins)).toEqual([3, 2]);
  });

  it("draws the parent by a seeded rule weighted by the tasks each member is best on", () => {
    const draws = Array.from(
      { length: 400 },
      (_, i) => pickParent([seed, a, b, c], createRng(1, "p", i)).commit,
    );
    expect(new Set(draws)).toEqual(new Set(["a", "b"]));
    const shareOfA = draws.filter((d) => d === "a").length / draws.length;
    expect(shareOfA).toBeGreaterThan(0.5);
    expect(shareOfA).toBeLessThan(0.7);
    expect(pickParent([seed, a, b], createRng(9, "x"))).toEqual(pickParent([seed, a, b], createRng(9, "x")));
  });

  it("admits a candidate no member dominates, and names why one is refused", () => {
    expect(admitToFront(b, [seed, a]).admitted).toBe(true);
    expect(admitToFront(c, [seed, a])).toEqual({
      admitted: false,
      reason: "dominated by a on the search tasks",
    });
    expect(admitToFront(cand("twin", 3, [1, 1, 0, 1]), [seed, a]).reason).toMatch(/same outcomes .* as a/);
    expect(admitToFront(a, [seed]).reason).toMatch(/dominating 1 member/);
  });

  it("selects by the objective, the oldest on a tie", () => {
    expect(bestByObjective([seed, b, a]).commit).toBe("a");
    expect(bestByObjective([cand("x", 2, [1, 0]), cand("y", 1, [0, 1])]).commit).toBe("y");
  });
});
