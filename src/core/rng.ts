import { createHash } from "node:crypto";

/**
 * Seeded randomness. Every random choice in hsearch comes from an `Rng` derived from the run seed and a path of
 * names (round, proposal, task, repeat), so the same config and seed replay the same run, and a resumed run draws
 * the same numbers as an uninterrupted one whatever order work was done in.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  /** A child generator, independent of how many numbers this one has drawn. */
  derive(...path: Array<string | number>): Rng;
}

/** A 128-bit seed from a root seed and a path, via SHA-256, so derived streams do not overlap. */
function seedWords(seed: number | string, path: Array<string | number>): [number, number, number, number] {
  const digest = createHash("sha256")
    .update(JSON.stringify([seed, ...path]))
    .digest();
  return [digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12)];
}

/** sfc32: small, fast, and passes PractRand; more than enough for simulation and bootstrap. */
export function createRng(seed: number | string, ...path: Array<string | number>): Rng {
  let [a, b, c, d] = seedWords(seed, path);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
    derive: (...more) => createRng(seed, ...path, ...more),
  };
  return rng;
}
