/** Comparisons read from a run: two candidates on every split both have episodes on (search first). */

import { PURPOSES } from "../../store";
import type { RunReader } from "../../store/types";
import { type Comparison, compareRollouts } from "./compare";

export function storedComparisons(store: RunReader, before: string, after: string): Comparison[] {
  return PURPOSES.flatMap((purpose) => {
    const a = store.listRollouts(before, purpose);
    const b = store.listRollouts(after, purpose);
    if (a.length === 0 || b.length === 0) return [];
    const c = compareRollouts(purpose, before, after, a, b);
    return c.paired > 0 ? [c] : [];
  });
}
