import { describe, expect, it } from "vitest";
import { mcnemarExact, pairedDifference, pairedOutcome } from "../../src/scoring/pairing";

describe("the paired difference of two pass rates (Bonett–Price adjusted Wald)", () => {
  it("matches a hand computation: both 10, A only 2, B only 8, neither 20", () => {
    // n = 40; p̃b = 3/42, p̃c = 9/42, Δ̃ = 6/42 = 0.142857; variance (12/42 − (6/42)²)/42 = 0.00631681,
    // √ = 0.0794784, × 1.959964 = 0.155775 → [−0.012918, 0.298632]; the estimate (8 − 2)/40 = 0.15.
    const d = pairedDifference({ both: 10, firstOnly: 2, secondOnly: 8, neither: 20 });
    expect(d.n).toBe(40);
    expect(d.delta).toBeCloseTo(0.15, 12);
    expect(d.low).toBeCloseTo(-0.012918, 6);
    expect(d.high).toBeCloseTo(0.298632, 6);
    expect(d.clear).toBe(false);
  });

  it("keeps a width when every pair agrees (3 pass, 3 fail): ±1.96·√(0.25/8)", () => {
    const d = pairedDifference({ both: 3, firstOnly: 0, secondOnly: 0, neither: 3 });
    expect(d.delta).toBe(0);
    expect(d.low).toBeCloseTo(-0.346476, 6);
    expect(d.high).toBeCloseTo(0.346476, 6);
  });

  it("clips to [−1, 1] and is clear when B passes every pair A failed", () => {
    // n = 5: p̃b = 1/7, p̃c = 6/7, Δ̃ = 5/7; variance (1 − 25/49)/7 = 0.0699708, √ = 0.264520 → [0.195836, 1].
    const d = pairedDifference({ both: 0, firstOnly: 0, secondOnly: 5, neither: 0 });
    expect(d.delta).toBe(1);
    expect(d.low).toBeCloseTo(0.195836, 6);
    expect(d.high).toBe(1);
    expect(d.clear).toBe(true);
  });

  it("has no estimate without pairs and refuses a count that is not one", () => {
    expect(pairedDifference({ both: 0, firstOnly: 0, secondOnly: 0, neither: 0 }).delta).toBeNull();
    expect(() => pairedDifference({ both: 1.5, firstOnly: 0, secondOnly: 0, neither: 0 })).toThrow(/count/);
  });
});

describe("McNemar's test on the discordant pairs: exact at every count (one rule)", () => {
  it("b = 2, c = 8 → 2·(1 + 10 + 45)/1024 = 0.109375; no discordant pair → 1", () => {
    expect(mcnemarExact(2, 8).p_value).toBeCloseTo(0.109375, 12);
    expect(mcnemarExact(0, 0).p_value).toBe(1);
  });

  it("stays exact from 25 discordant pairs on: b = 10, c = 30 → 2·P[Bin(40, ½) ≤ 10] = 0.00222", () => {
    // Σ_{i≤10} C(40, i) = 1 221 246 132 (hand sum) → 2 · that / 2⁴⁰ = 0.0022214.
    const m = mcnemarExact(10, 30);
    expect(m.p_value).toBeCloseTo(0.0022214, 6);
    expect(mcnemarExact(30, 10).p_value).toBe(m.p_value);
  });
});

describe("pairedOutcome: one outcome over pairs", () => {
  it("tables the pairs and gives the interval and McNemar of that table", () => {
    const pairs = [
      [true, true],
      [true, false],
      [false, true],
      [false, true],
      [false, false],
    ] as const;
    const o = pairedOutcome(pairs, (x) => x);
    expect(o.table).toEqual({ both: 1, firstOnly: 1, secondOnly: 2, neither: 1 });
    expect([o.first, o.second]).toEqual([2, 3]);
    expect(o).toMatchObject(pairedDifference(o.table));
    expect(o.mcnemar).toEqual(mcnemarExact(1, 2));
  });
});
