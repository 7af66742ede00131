import { describe, expect, it } from "vitest";
import { mcnemarExact, mcnemarFromPairs, pairedBootstrapMeanDifference } from "../../src/scoring/pairing";

describe("exact McNemar", () => {
  it("matches hand-computed binomial tails", () => {
    expect(mcnemarExact(0, 5).p_value).toBe(0.0625); // 2 · 1/32
    expect(mcnemarExact(1, 9).p_value).toBe(22 / 1024); // 2 · 11/1024 ≈ 0.0215
    expect(mcnemarExact(9, 1).p_value).toBe(22 / 1024);
    expect(mcnemarExact(2, 8).p_value).toBeCloseTo(0.109375, 15);
  });
  it("caps at 1 and returns 1 without discordant pairs", () => {
    expect(mcnemarExact(3, 3).p_value).toBe(1);
    expect(mcnemarExact(0, 0)).toEqual({ b: 0, c: 0, discordant: 0, p_value: 1 });
  });
  it("stays accurate past the exact-integer range (n > 1000)", () => {
    // references from exact rational arithmetic
    expect(mcnemarExact(480, 530).p_value).toBeCloseTo(0.12307327589621743, 10);
    expect(mcnemarExact(470, 560).p_value).toBeCloseTo(0.005526243018709765, 12);
  });
  it("rejects non-counts", () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/count/);
    expect(() => mcnemarExact(1.5, 2)).toThrow(/count/);
  });
  it("counts discordant pairs from paired outcomes", () => {
    const first = [true, true, false, false, true, false];
    const second = [true, false, true, true, true, true];
    expect(mcnemarFromPairs(first, second)).toMatchObject({ b: 1, c: 3, discordant: 4, p_value: 0.625 });
    expect(() => mcnemarFromPairs([true], [])).toThrow(/length/);
  });
});

describe("paired bootstrap of a mean difference", () => {
  const a = [0.62, 0.71, 0.55, 0.9, 0.48, 0.77, 0.66, 0.59, 0.83, 0.7];
  const b = [0.58, 0.6, 0.57, 0.74, 0.45, 0.69, 0.61, 0.6, 0.7, 0.66];

  it("is reproducible under a seed and differs under another", () => {
    const first = pairedBootstrapMeanDifference(a, b, { seed: 11, resamples: 2000 });
    expect(pairedBootstrapMeanDifference(a, b, { seed: 11, resamples: 2000 })).toEqual(first);
    const other = pairedBootstrapMeanDifference(a, b, { seed: 12, resamples: 2000 });
    expect(other.mean_difference).toBe(first.mean_difference);
    expect(other.ci).not.toEqual(first.ci);
  });

  it("brackets the observed mean difference and detects a consistent improvement", () => {
    const result = pairedBootstrapMeanDifference(a, b, { seed: 11, resamples: 2000 });
    expect(result.mean_difference).toBeCloseTo(0.061, 12);
    expect(result.ci[0]).toBeGreaterThan(0);
    expect(result.ci[0]).toBeLessThan(result.mean_difference);
    expect(result.ci[1]).toBeGreaterThan(result.mean_difference);
    expect(result.p_value).toBeLessThan(0.05);
    expect(result.p_value).toBeGreaterThan(0); // add-one Monte Carlo p never reaches 0
  });

  it("gives p = 1 for identical samples", () => {
    const result = pairedBootstrapMeanDifference(a, a, { seed: 1, resamples: 500 });
    expect(result).toMatchObject({ mean_difference: 0, ci: [0, 0], p_value: 1 });
  });

  it("rejects unusable input", () => {
    expect(() => pairedBootstrapMeanDifference([], [], { seed: 1 })).toThrow(/at least one pair/);
    expect(() => pairedBootstrapMeanDifference([1], [1, 2], { seed: 1 })).toThrow(/length/);
    expect(() => pairedBootstrapMeanDifference([1], [1], { seed: 1, resamples: 0 })).toThrow(/resamples/);
  });
});
