import { describe, expect, it } from "vitest";
import { absRecAtK, spl, timeliness } from "../../src/scoring/timeliness";

const worked = [
  { decisive_step: 1, deferral_step: 1 },
  { decisive_step: 2, deferral_step: null },
  { decisive_step: 3, deferral_step: 4 },
];

describe("timeliness (DESIGN §6 worked example)", () => {
  it("AbsRec@1 = 1/3, AbsRec@2 = 2/3, SPL = (1 + 0 + 0.75)/3", () => {
    expect(absRecAtK(worked, 1)).toBeCloseTo(1 / 3, 12);
    expect(absRecAtK(worked, 2)).toBeCloseTo(2 / 3, 12);
    expect(spl(worked)).toBeCloseTo(1.75 / 3, 12);
    expect(spl(worked)).toBeCloseTo(0.583, 3);
  });

  it("tabulates K = 1..10 with timely recall = AbsRec@1", () => {
    const result = timeliness(worked);
    expect(Object.keys(result.absrec)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    expect(result.absrec["10"]).toBeCloseTo(2 / 3, 12);
    expect(result.timely_recall).toBe(result.absrec["1"]);
    expect(result.n).toBe(3);
  });

  it("gives no credit to a deferral before the evidence", () => {
    const early = [{ decisive_step: 3, deferral_step: 2 }];
    expect(absRecAtK(early, 10)).toBe(0);
    expect(spl(early)).toBe(0);
  });

  it("rejects empty or malformed input", () => {
    expect(() => spl([])).toThrow(/at least one/);
    expect(() => absRecAtK(worked, 0)).toThrow(/K ≥ 1/);
    expect(() => spl([{ decisive_step: 0, deferral_step: 1 }])).toThrow(/decisive step/);
  });
});
