import { describe, expect, it } from "vitest";
import {
  auroc,
  type BeliefReport,
  brier,
  calibrationReport,
  ece,
  eceBin,
  pairedCalibrationDifference,
  pairKey,
} from "../../src/scoring/calibration";
import { retailBlocked, retailFeasible } from "../helpers/task-builders";

let counter = 0;
function reports(feasible: number[], blocked: Array<number | null>): BeliefReport[] {
  const make = (p: number | null, isFeasible: boolean): BeliefReport => {
    counter += 1;
    return { task_id: `t${counter}`, pair: `p${counter}`, feasible: isFeasible, p_feasible: p };
  };
  return [...feasible.map((p) => make(p, true)), ...blocked.map((p) => make(p, false))];
}

describe("AUROC", () => {
  it("is 1 when perfectly separated and 0 when inverted", () => {
    expect(auroc(reports([0.9, 0.8], [0.1, 0.2]))).toEqual({ value: 1 });
    expect(auroc(reports([0.1, 0.2], [0.9, 0.8]))).toEqual({ value: 0 });
  });
  it("counts ties as one half", () => {
    // pairs (pos, neg): (.5,.5)=½, (.5,.3)=1, (.7,.5)=1, (.7,.3)=1 → 3.5/4
    expect(auroc(reports([0.5, 0.7], [0.5, 0.3]))).toEqual({ value: 0.875 });
    expect(auroc(reports([0.4, 0.4], [0.4]))).toEqual({ value: 0.5 });
  });
  it("is undefined with one class or no valid reports, and skips missing beliefs", () => {
    expect(auroc(reports([0.9, 0.2], []))).toEqual({
      value: null,
      reason: "one class only (no blocked tasks)",
    });
    expect(auroc(reports([], [null]))).toEqual({ value: null, reason: "no valid reports" });
    expect(auroc(reports([0.9], [null]))).toMatchObject({ value: null });
    expect(auroc(reports([0.9], [null, 0.2]))).toEqual({ value: 1 });
  });
  it("rejects beliefs outside [0, 1]", () => {
    expect(() => auroc(reports([1.2], [0.1]))).toThrow(/p_feasible/);
    expect(() => auroc(reports([Number.NaN], [0.1]))).toThrow(/p_feasible/);
  });
});

describe("Brier", () => {
  it("is the mean squared error against feasibility", () => {
    expect(brier(reports([0.9, 0.8], [0.1, 0.2])).value).toBeCloseTo(0.025, 12);
    expect(brier(reports([0], [1])).value).toBe(1);
    expect(brier(reports([1], [])).value).toBe(0); // defined with one class
    expect(brier(reports([], [null]))).toEqual({ value: null, reason: "no valid reports" });
  });
});

describe("ECE10", () => {
  it("weights |accuracy − confidence| per bin", () => {
    // bins 1, 2, 8, 9 each with one report: (0.1 + 0.2 + 0.2 + 0.1) / 4
    expect(ece(reports([0.9, 0.8], [0.1, 0.2])).value).toBeCloseTo(0.15, 12);
    // one bin: 3 of 4 feasible at confidence 0.7 → |0.75 − 0.7|
    expect(ece(reports([0.7, 0.7, 0.7], [0.7])).value).toBeCloseTo(0.05, 12);
  });
  it("uses left-closed bins with p = 1 in the last bin", () => {
    expect([0, 0.05, 0.1, 0.3, 0.7, 0.95, 1].map(eceBin)).toEqual([0, 0, 1, 3, 7, 9, 9]);
    // 0.1 is in bin 1, apart from 0.05: (|0 − .05| + |1 − .1|) / 2; pooled it would be 0.425
    expect(ece(reports([0.1], [0.05])).value).toBeCloseTo(0.475, 12);
    // 0.95 and 1 share the last bin: |1 − 1.95| / 2
    expect(ece(reports([1], [0.95])).value).toBeCloseTo(0.475, 12);
  });
  it("is undefined without valid reports", () => {
    expect(ece([])).toEqual({ value: null, reason: "no valid reports" });
  });
});

describe("calibrationReport", () => {
  const noisy = reports(
    [0.9, 0.7, 0.65, 0.4, 0.85, 0.55, 0.95, 0.3, 0.8, 0.6],
    [0.2, 0.5, 0.1, 0.45, 0.35, 0.7, 0.05, 0.25, 0.6, 0.15, null],
  );

  it("gives point values with bootstrap intervals that are reproducible under a seed", () => {
    const a = calibrationReport(noisy, { seed: 7, resamples: 2000 });
    const b = calibrationReport(noisy, { seed: 7, resamples: 2000 });
    expect(a).toEqual(b);
    expect(a.n).toBe(21);
    expect(a.n_valid).toBe(20);
    const { auroc: estimate } = a;
    expect(estimate.value).toBeCloseTo(auroc(noisy).value as number, 12);
    if (estimate.value === null || estimate.ci === null) throw new Error("expected an interval");
    expect(estimate.ci[0]).toBeLessThanOrEqual(estimate.value);
    expect(estimate.ci[1]).toBeGreaterThanOrEqual(estimate.value);
    expect(estimate.ci[0]).toBeGreaterThan(0.5);
  });

  it("changes with the seed", () => {
    const a = calibrationReport(noisy, { seed: 7, resamples: 2000 });
    const c = calibrationReport(noisy, { seed: 8, resamples: 2000 });
    expect(c.auroc.value).toBe(a.auroc.value);
    expect(c.auroc).not.toEqual(a.auroc);
    expect(c.brier).not.toEqual(a.brier);
  });

  it("skips resamples where AUROC is undefined and passes undefined metrics through", () => {
    const tiny = calibrationReport(reports([0.9], [0.1]), { seed: 1, resamples: 1000 });
    if (tiny.auroc.value === null) throw new Error("AUROC is defined on the full sample");
    expect(tiny.auroc.resamples_skipped).toBeGreaterThan(300); // half the resamples have one class
    expect(tiny.auroc.ci).toEqual([1, 1]);
    const oneClass = calibrationReport(reports([0.9, 0.8], []), { seed: 1, resamples: 100 });
    expect(oneClass.auroc).toEqual({ value: null, reason: "one class only (no blocked tasks)" });
    expect(oneClass.brier.value).toBeCloseTo(0.025, 12);
  });
});

describe("pairedCalibrationDifference", () => {
  const pairs = ["s1", "s2", "s3", "s4", "s5", "s6"];
  const harness = (pFeasible: number[], pBlocked: number[]): BeliefReport[] =>
    pairs.flatMap((pair, index) => [
      { task_id: `${pair}-f`, pair, feasible: true, p_feasible: pFeasible[index] as number },
      { task_id: `${pair}-b`, pair, feasible: false, p_feasible: pBlocked[index] as number },
    ]);
  const sharp = harness([0.9, 0.8, 0.85, 0.7, 0.95, 0.6], [0.1, 0.3, 0.2, 0.4, 0.05, 0.5]);
  const vague = harness([0.6, 0.5, 0.55, 0.45, 0.7, 0.5], [0.5, 0.5, 0.4, 0.6, 0.45, 0.55]);

  it("is exactly zero for a harness against itself", () => {
    const result = pairedCalibrationDifference(sharp, sharp, "brier", { seed: 1, resamples: 500 });
    expect(result.pairs).toBe(6);
    expect(result.difference).toMatchObject({ value: 0, ci: [0, 0] });
  });

  it("resamples pairs, is seeded, and shows the better harness", () => {
    const a = pairedCalibrationDifference(sharp, vague, "brier", { seed: 3, resamples: 2000 });
    const b = pairedCalibrationDifference(sharp, vague, "brier", { seed: 3, resamples: 2000 });
    expect(a).toEqual(b);
    if (a.difference.value === null || a.difference.ci === null) throw new Error("expected an interval");
    expect(a.difference.value).toBeCloseTo(
      (brier(sharp).value as number) - (brier(vague).value as number),
      12,
    );
    expect(a.difference.ci[1]).toBeLessThan(0);
    // every resample keeps both classes (pairs hold one of each), so nothing is skipped for AUROC either
    const auc = pairedCalibrationDifference(sharp, vague, "auroc", { seed: 3, resamples: 500 });
    expect(auc.difference).toMatchObject({ resamples_skipped: 0 });
  });

  it("needs the same pairs on both sides", () => {
    expect(() => pairedCalibrationDifference(sharp, sharp.slice(2), "ece", { seed: 1 })).toThrow(
      /same source pairs/,
    );
  });
});

describe("pairKey", () => {
  it("pairs a blocked task with its feasible source", () => {
    expect(pairKey(retailBlocked())).toBe("retail-f-1");
    expect(pairKey(retailFeasible())).toBe("retail-f-1");
    expect(() => pairKey(retailBlocked({ source: undefined }))).toThrow(/no source/);
  });
});
