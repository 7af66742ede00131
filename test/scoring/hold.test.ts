import { describe, expect, it } from "vitest";
import { type HoldEpisode, holdSummary, meanSd } from "../../src/scoring/hold";

const b = (pre: boolean, post: boolean): HoldEpisode => ({ task_id: "b", kind: "blocked", pre, post });
const f = (pre: boolean, post: boolean): HoldEpisode => ({ task_id: "f", kind: "feasible", pre, post });
const T = true;
const F = false;

// run 1: P(+|+) = 2/3, P(−|+) = 1/3, P(+|−) = 1/2, CRA = 1/6, Δχ = 3/5 − 3/5 = 0, one new false abstention of 2
// run 2: P(+|+) = 1, P(−|+) = 0, P(+|−) = 2/3, CRA = 2/3, Δχ = 3/4 − 1/4 = 1/2, none of 2
const runs: HoldEpisode[][] = [
  [b(T, T), b(T, T), b(T, F), b(F, T), b(F, F), f(F, T), f(F, F)],
  [b(T, T), b(F, T), b(F, T), b(F, F), f(F, F), f(T, T)],
];

describe("holdSummary", () => {
  it("gives transition rates as mean ± sample SD over runs", () => {
    const summary = holdSummary(runs, { samePredicate: true });
    expect(summary.runs).toBe(2);
    expect(summary.p_pos_pos.mean).toBeCloseTo(5 / 6, 12);
    expect(summary.p_pos_pos.sd).toBeCloseTo(Math.SQRT2 / 6, 12);
    expect(summary.p_neg_pos.mean).toBeCloseTo(1 / 6, 12);
    expect(summary.p_pos_neg.mean).toBeCloseTo(7 / 12, 12);
  });

  it("computes CRA = P(+|−) − P(−|+) with the same predicate", () => {
    const summary = holdSummary(runs, { samePredicate: true });
    expect(summary.measure).toBe("cra");
    expect(summary.change.mean).toBeCloseTo(5 / 12, 12);
    expect(summary.change.sd).toBeCloseTo(0.5 / Math.SQRT2, 12);
  });

  it("computes Δχ = post-positive rate − pre-positive rate across predicates", () => {
    const summary = holdSummary(runs, { samePredicate: false });
    expect(summary.measure).toBe("delta_chi");
    expect(summary.change.mean).toBeCloseTo(0.25, 12);
    expect(summary.change.sd).toBeCloseTo(0.5 / Math.SQRT2, 12);
  });

  it("counts new false abstentions on feasible tasks", () => {
    const summary = holdSummary(runs, { samePredicate: true });
    expect(summary.new_false_abstentions.mean).toBe(0.5);
    expect(summary.new_false_abstentions.sd).toBeCloseTo(Math.SQRT1_2, 12);
    expect(summary.new_false_abstention_rate.mean).toBe(0.25);
  });

  it("leaves undefined rates out instead of inventing zeros", () => {
    const allPositive = holdSummary([[b(T, T), b(T, F)]], { samePredicate: true });
    expect(allPositive.p_pos_neg).toEqual({
      mean: null,
      sd: null,
      runs: 0,
      reason: "undefined in every run",
    });
    expect(allPositive.change.mean).toBeNull();
    expect(allPositive.p_pos_pos).toEqual({
      mean: 0.5,
      sd: null,
      runs: 1,
      reason: "a sample SD needs at least two runs",
    });
    expect(allPositive.new_false_abstentions.mean).toBeNull();
    expect(() => holdSummary([], { samePredicate: true })).toThrow(/at least one run/);
  });
});

describe("meanSd", () => {
  it("uses the n − 1 denominator", () => {
    expect(meanSd([1, 2, 3, 4])).toMatchObject({ mean: 2.5, runs: 4 });
    expect(meanSd([1, 2, 3, 4]).sd).toBeCloseTo(Math.sqrt(5 / 3), 12);
  });
});
