/**
 * The splits of a paired suite, as the study made them (docs/DESIGN.md §3): search and held-out built from disjoint
 * feasible sources, each of which has at least one blocked variant in its split; blocked families balanced within
 * a split (counts differ by at most one); an independent set of feasible tasks never augmented. The sizes are the
 * study's — search 64 blocked + 43 feasible, held-out 32 + 28, independent 17, from 88 sources — when the proved
 * sources and variants allow them, otherwise the largest proportionally smaller ones they allow. Pure and seeded.
 */
import { createRng, type Rng } from "../../../core";
import { FAMILIES, type Family } from "../../../domain";

export const STUDY_SOURCES = 88;

export interface PairSizes {
  searchFeasible: number;
  searchBlocked: number;
  heldoutFeasible: number;
  heldoutBlocked: number;
  independent: number;
}

export const STUDY_SIZES: PairSizes = {
  searchFeasible: 43,
  searchBlocked: 64,
  heldoutFeasible: 28,
  heldoutBlocked: 32,
  independent: 17,
};

/**
 * The study's sizes scaled to `sources` feasible sources (of its 88), rounded; a split's blocked count stays within
 * what its sources can carry (one to three variants each, none without a source).
 */
export function sizesFor(sources: number): PairSizes {
  const scale = (n: number) => Math.round((n * sources) / STUDY_SOURCES);
  const blocked = (n: number, feasible: number) => Math.min(3 * feasible, Math.max(feasible, scale(n)));
  const searchFeasible = scale(STUDY_SIZES.searchFeasible);
  const heldoutFeasible = scale(STUDY_SIZES.heldoutFeasible);
  return {
    searchFeasible,
    searchBlocked: blocked(STUDY_SIZES.searchBlocked, searchFeasible),
    heldoutFeasible,
    heldoutBlocked: blocked(STUDY_SIZES.heldoutBlocked, heldoutFeasible),
    independent: sources - searchFeasible - heldoutFeasible,
  };
}

/** A source that passed its proof, and the families whose variant passed theirs. */
export interface ProvedSource {
  id: string;
  families: readonly Family[];
}

export interface SplitPart {
  sources: string[];
  variants: Array<{ source: string; family: Family }>;
}

export interface Allocation {
  /** How many of the study's 88 sources the sizes are scaled to (88: the study's sizes). */
  scaledTo: number;
  sizes: PairSizes;
  search: SplitPart;
  heldout: SplitPart;
  independent: string[];
}

/** Random assignments tried at each size before a smaller one is tried. */
const TRIES_PER_SIZE = 200;

/** The largest study-proportional allocation the proved sources allow; scaledTo 0 when none does (then no split). */
export function allocateSplits(sources: readonly ProvedSource[], seed: number): Allocation {
  const ordered = [...sources].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let k = Math.min(STUDY_SOURCES, ordered.length); k >= 1; k--) {
    const sizes = sizesFor(k);
    // A suite needs a search and a held-out split to be one.
    if (sizes.searchFeasible === 0 || sizes.heldoutFeasible === 0) continue;
    for (let attempt = 0; attempt < TRIES_PER_SIZE; attempt++) {
      const allocation = tryAllocate(ordered, sizes, createRng(seed, "tasks-pair", "splits", k, attempt));
      if (allocation !== null) return { scaledTo: k, sizes, ...allocation };
    }
  }
  const empty = { sources: [], variants: [] };
  return { scaledTo: 0, sizes: sizesFor(0), search: empty, heldout: { ...empty }, independent: [] };
}

function tryAllocate(
  sources: readonly ProvedSource[],
  sizes: PairSizes,
  rng: Rng,
): Omit<Allocation, "scaledTo" | "sizes"> | null {
  const augmentable = rng.shuffle(sources.filter((source) => source.families.length > 0));
  const bare = rng.shuffle(sources.filter((source) => source.families.length === 0));
  const paired = sizes.searchFeasible + sizes.heldoutFeasible;
  if (augmentable.length < paired) return null;
  const searchSources = augmentable.slice(0, sizes.searchFeasible);
  const heldoutSources = augmentable.slice(sizes.searchFeasible, paired);
  // Sources without a variant are independent first; then augmentable ones left over (their variants unused).
  const independent = [...bare, ...augmentable.slice(paired)].slice(0, sizes.independent);
  if (independent.length < sizes.independent) return null;
  const search = pickVariants(searchSources, sizes.searchBlocked, rng);
  const heldout = pickVariants(heldoutSources, sizes.heldoutBlocked, rng);
  if (search === null || heldout === null) return null;
  const ids = (list: readonly ProvedSource[]) => list.map((source) => source.id).sort();
  return {
    search: { sources: ids(searchSources), variants: search },
    heldout: { sources: ids(heldoutSources), variants: heldout },
    independent: ids(independent),
  };
}

/**
 * `blocked` variants of these sources, families balanced (a third each; the remainder to families in a seeded
 * order), every source with at least one; null when the sources' proved families do not allow it.
 */
function pickVariants(
  sources: readonly ProvedSource[],
  blocked: number,
  rng: Rng,
): Array<{ source: string; family: Family }> | null {
  if (blocked < sources.length) return null;
  const need = new Map<Family, number>(FAMILIES.map((family) => [family, Math.floor(blocked / 3)]));
  for (const family of rng.shuffle(FAMILIES).slice(0, blocked % 3))
    need.set(family, (need.get(family) ?? 0) + 1);
  const picked = new Set<string>();
  const key = (source: string, family: Family) => `${family}\u0000${source}`;
  const take = (source: string, family: Family) => {
    picked.add(key(source, family));
    need.set(family, (need.get(family) ?? 0) - 1);
  };
  // Each source its one variant first, from the family still most needed; sources with fewer choices first.
  const byChoice = [...sources].sort((a, b) => a.families.length - b.families.length);
  for (const source of byChoice) {
    const family = [...source.families].sort((a, b) => (need.get(b) ?? 0) - (need.get(a) ?? 0))[0];
    if (family === undefined || (need.get(family) ?? 0) <= 0) return null;
    take(source.id, family);
  }
  for (const family of FAMILIES) {
    for (const source of sources) {
      if ((need.get(family) ?? 0) <= 0) break;
      if (source.families.includes(family) && !picked.has(key(source.id, family))) take(source.id, family);
    }
    if ((need.get(family) ?? 0) !== 0) return null;
  }
  return [...picked]
    .map((entry) => {
      const [family, source] = entry.split("\u0000") as [Family, string];
      return { source, family };
    })
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.family < b.family ? -1 : 1));
}
