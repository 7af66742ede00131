import { describe, expect, it } from "vitest";
import { FAMILIES, type Family } from "../../../src/domain/task";
import {
  type Allocation,
  allocateSplits,
  type ProvedSource,
  STUDY_SIZES,
  sizesFor,
} from "../../../src/tasks/generators/pair/splits";

/** `n` sources, the i-th with the families `pattern(i)` proved. */
function sources(n: number, pattern: (i: number) => Family[]): ProvedSource[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `src-${String(i).padStart(3, "0")}`,
    families: pattern(i),
  }));
}

const ALL = (): Family[] => [...FAMILIES];

function familyCounts(part: Allocation["search"]): number[] {
  return FAMILIES.map((family) => part.variants.filter((v) => v.family === family).length);
}

function checkShape(allocation: Allocation, proved: readonly ProvedSource[]): void {
  const { search, heldout, independent, sizes } = allocation;
  expect(search.sources).toHaveLength(sizes.searchFeasible);
  expect(heldout.sources).toHaveLength(sizes.heldoutFeasible);
  expect(independent).toHaveLength(sizes.independent);
  expect(search.variants).toHaveLength(sizes.searchBlocked);
  expect(heldout.variants).toHaveLength(sizes.heldoutBlocked);
  // Disjoint sources: no source in two splits.
  const all = [...search.sources, ...heldout.sources, ...independent];
  expect(new Set(all).size).toBe(all.length);
  for (const part of [search, heldout]) {
    // Variants come from the split's own sources, one per (source, family), of a family that was proved.
    const keys = part.variants.map((v) => `${v.source}/${v.family}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const variant of part.variants) {
      expect(part.sources).toContain(variant.source);
      expect(proved.find((s) => s.id === variant.source)?.families).toContain(variant.family);
    }
    // Every feasible task of the split is a counterpart; families balanced.
    for (const source of part.sources) expect(part.variants.some((v) => v.source === source)).toBe(true);
    const counts = familyCounts(part);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  }
}

describe("the splits of a paired suite", () => {
  it("scales the study's sizes: 88 sources give them exactly, fewer give proportionally fewer", () => {
    expect(sizesFor(88)).toEqual(STUDY_SIZES);
    expect(sizesFor(44)).toEqual({
      searchFeasible: 22,
      searchBlocked: 32,
      heldoutFeasible: 14,
      heldoutBlocked: 16,
      independent: 8,
    });
    // A split's blocked tasks need its sources: none without one, at most three per source.
    expect(sizesFor(1)).toEqual({
      searchFeasible: 0,
      searchBlocked: 0,
      heldoutFeasible: 0,
      heldoutBlocked: 0,
      independent: 1,
    });
    expect(sizesFor(2)).toMatchObject({
      searchFeasible: 1,
      searchBlocked: 1,
      heldoutFeasible: 1,
      heldoutBlocked: 1,
    });
  });

  it("has the study's sizes when enough sources and variants pass, with disjoint sources and balanced families", () => {
    const proved = sources(95, ALL);
    const allocation = allocateSplits(proved, 1);
    expect(allocation.scaledTo).toBe(88);
    expect(allocation.sizes).toEqual(STUDY_SIZES);
    checkShape(allocation, proved);
    expect(familyCounts(allocation.search).sort()).toEqual([21, 21, 22]);
    expect(familyCounts(allocation.heldout).sort()).toEqual([10, 11, 11]);
  });

  it("is proportionally smaller when fewer pass, and puts sources without a variant in the independent split", () => {
    // 30 sources: 25 with all three families, 5 with none.
    const proved = sources(30, (i) => (i < 25 ? ALL() : []));
    const allocation = allocateSplits(proved, 1);
    expect(allocation.scaledTo).toBe(30);
    checkShape(allocation, proved);
    for (const id of proved.filter((s) => s.families.length === 0).map((s) => s.id))
      expect(allocation.independent).toContain(id);
  });

  it("shrinks further when the variants cannot balance the families", () => {
    // Only infeasible variants: a balanced split needs the other families too.
    const lopsided = sources(20, (i) => (i < 3 ? ALL() : ["infeasible"]));
    const allocation = allocateSplits(lopsided, 1);
    expect(allocation.scaledTo).toBeGreaterThan(0);
    expect(allocation.scaledTo).toBeLessThan(20);
    checkShape(allocation, lopsided);
    // Nothing at all to pair: no split.
    expect(
      allocateSplits(
        sources(5, () => []),
        1,
      ).scaledTo,
    ).toBe(0);
  });

  it("is the same for a seed and differs between seeds", () => {
    const proved = sources(60, (i) => FAMILIES.filter((_, f) => (i + f) % 4 !== 0));
    const first = allocateSplits(proved, 7);
    expect(allocateSplits([...proved].reverse(), 7)).toEqual(first);
    checkShape(first, proved);
    expect(allocateSplits(proved, 8)).not.toEqual(first);
  });
});
