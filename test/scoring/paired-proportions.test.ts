import { describe, expect, it } from "vitest";
import { erfc, mcnemar, pairedDifference } from "../../src/scoring/paired-proportions";

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

describe("McNemar's test on the discordant pairs", () => {
  it("is exact below 25 discordant pairs: b = 2, c = 8 → 2·(1 + 10 + 45)/1024 = 0.109375", () => {
    const m = mcnemar(2, 8);
    expect(m.method).toBe("exact");
    expect(m.p_value).toBeCloseTo(0.109375, 12);
    expect(mcnemar(0, 0).p_value).toBe(1);
  });

  it("uses χ² with continuity correction from 25 on: b = 10, c = 30 → (19²/40 = 9.025) p = 0.0026631", () => {
    const m = mcnemar(10, 30);
    expect(m.method).toBe("chi2-cc");
    expect(m.p_value).toBeCloseTo(0.0026631, 6);
    // Symmetric in the two sides.
    expect(mcnemar(30, 10).p_value).toBe(m.p_value);
  });

  it("erfc agrees with known values", () => {
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207, 7);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 7);
  });
});
