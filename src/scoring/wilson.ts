/** A proportion k/n with its 95% Wilson score interval: every rate hsearch prints with an interval is one. */
export interface Rate {
  k: number;
  n: number;
  /** k/n, null when n = 0. */
  rate: number | null;
  /** The 95% Wilson score interval, null when n = 0. */
  low: number | null;
  high: number | null;
}

const Z95 = 1.959963984540054;

export function wilson(k: number, n: number): Rate {
  if (n === 0) return { k, n, rate: null, low: null, high: null };
  const p = k / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { k, n, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
