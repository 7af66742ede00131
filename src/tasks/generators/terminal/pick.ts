/** Seeded choices shared by the scenarios. */
import type { Rng } from "../../../core";

/** `n` distinct items of `pool`, in random order. */
export function pickDistinct<T>(rng: Rng, pool: readonly T[], n: number): T[] {
  return rng.shuffle(pool).slice(0, n);
}

/** An integer in [low, high]. */
export function between(rng: Rng, low: number, high: number): number {
  return low + rng.int(high - low + 1);
}

export function pad2(value: number): string {
  return String(value).padStart(2, "0");
}
