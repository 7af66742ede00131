import { describe, expect, it } from "vitest";
import { storeBatchSize } from "../../src/eval/stored-evaluation";

describe("how many finished episodes an evaluation stores at once", () => {
  it("one by one when small, about a twentieth of a larger one, never more than 25", () => {
    expect([1, 14, 39].map(storeBatchSize)).toEqual([1, 1, 1]);
    expect(storeBatchSize(128)).toBe(6);
    expect(storeBatchSize(500)).toBe(25);
    expect(storeBatchSize(100_000)).toBe(25);
  });
});
