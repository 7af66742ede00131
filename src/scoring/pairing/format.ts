/**
 * How a paired comparison is printed, the same in every output (diff, compare, the report, the viewer), so that one
 * pair of harnesses reads the same everywhere: "+0.125 [-0.10, +0.35]" and "p = 0.625".
 */

const signed = (value: number, digits: number) =>
  `${value >= 0 ? "+" : "-"}${Math.abs(value).toFixed(digits)}`;

/** The difference with its 95% interval; null without pairs. */
export function pairedIntervalText(d: {
  delta: number | null;
  low: number | null;
  high: number | null;
}): string | null {
  if (d.delta === null || d.low === null || d.high === null) return null;
  return `${signed(d.delta, 3)} [${signed(d.low, 2)}, ${signed(d.high, 2)}]`;
}

/** McNemar's two-sided p to three significant digits. */
export function pValueText(p: number): string {
  return p.toPrecision(3);
}
