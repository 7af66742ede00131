import { describe, expect, it } from "vitest";
import { bootstrapDraws, percentileInterval, quantileSorted } from "../../src/scoring/bootstrap";

describe("percentiles", () => {
  it("interpolates between order statistics (type 7)", () => {
    const values = Array.from({ length: 101 }, (_, index) => index + 1);
    const [low, high] = percentileInterval(values) as [number, number];
    expect(low).toBeCloseTo(3.5, 12);
    expect(high).toBeCloseTo(98.5, 12);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentileInterval([], 0.95)).toBeNull();
    expect(() => percentileInterval([1], 1)).toThrow(/level/);
  });
});

describe("bootstrapDraws", () => {
  const mean = (data: number[]) => (indices: readonly number[]) =>
    indices.reduce((sum, index) => sum + (data[index] as number), 0) / indices.length;
  const data = [3, 1, 4, 1, 5, 9, 2, 6];

  it("defaults to 10,000 resamples, reproducible per seed and path", () => {
    const first = bootstrapDraws(data.length, mean(data), { seed: 5 });
    expect(first.values).toHaveLength(10_000);
    expect(bootstrapDraws(data.length, mean(data), { seed: 5 })).toEqual(first);
    expect(bootstrapDraws(data.length, mean(data), { seed: 6 }).values).not.toEqual(first.values);
    expect(bootstrapDraws(data.length, mean(data), { seed: 5, path: ["x"] }).values).not.toEqual(
      first.values,
    );
  });

  it("counts resamples where the statistic is undefined", () => {
    const result = bootstrapDraws(2, (indices) => (indices[0] === indices[1] ? null : 1), {
      seed: 1,
      resamples: 1000,
    });
    expect(result.skipped + result.values.length).toBe(1000);
    expect(result.skipped).toBeGreaterThan(400);
    expect(result.skipped).toBeLessThan(600);
  });
});
