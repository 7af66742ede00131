/**
 * The axes every hand-written plot of the report draws: a y grid with tick labels, one x tick per round (or round
 * steps when there are many), the rounds' x scale, and the document around them. Pure strings; callers escape what
 * comes from the run.
 */
import { escapeHtml } from "./html";

/** A coordinate to one decimal, as every plot writes them. */
export const coord = (value: number) => (Math.round(value * 10) / 10).toString();

/** Round steps of 1, 2 or 5 × 10^k covering [lo, hi] with about `target` ticks. */
export function niceTicks(lo: number, hi: number, target = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo) return [];
  if (hi === lo) return [lo];
  const rough = (hi - lo) / Math.max(1, target);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let value = Math.ceil(lo / step - 1e-9) * step; value <= hi + step * 1e-9; value += step)
    ticks.push(Number(value.toFixed(10)));
  return ticks;
}

/** Decimals that tell the ticks apart. */
export function decimalsFor(ticks: readonly number[]): number {
  const step = ticks.length > 1 ? Math.abs((ticks[1] as number) - (ticks[0] as number)) : 0.1;
  return step >= 1 ? 0 : Math.min(4, Math.ceil(-Math.log10(step) - 1e-9));
}

export interface PlotBox {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** x of each round: one slot per round from the first to the last, a lone round in the middle. */
export function roundScale(
  rounds: readonly number[],
  box: PlotBox,
): { x: (round: number) => number; slot: number } {
  const first = rounds.length > 0 ? Math.min(...rounds) : 0;
  const last = rounds.length > 0 ? Math.max(...rounds) : 0;
  const slot = (box.right - box.left) / (last - first + 1);
  return { x: (round) => box.left + slot / 2 + (round - first) * slot, slot };
}

/** Horizontal grid lines with their labels at the left. */
export function yGrid(
  ticks: readonly number[],
  y: (value: number) => number,
  box: PlotBox,
  label: (tick: number) => string = (tick) => tick.toFixed(decimalsFor(ticks)),
): string {
  return ticks
    .map(
      (tick) =>
        `<line class="grid" x1="${coord(box.left)}" x2="${coord(box.right)}" y1="${coord(y(tick))}" y2="${coord(y(tick))}" stroke="#e6e7ea"/><text class="y-tick" x="${coord(box.left - 6)}" y="${coord(y(tick) + 3.5)}" text-anchor="end" fill="#6b7280">${escapeHtml(label(tick))}</text>`,
    )
    .join("");
}

/** The x axis line and a tick per round (round-numbered steps beyond 20 rounds). */
export function roundAxis(rounds: readonly number[], x: (round: number) => number, box: PlotBox): string {
  const first = Math.min(...rounds);
  const last = Math.max(...rounds);
  const ticks = last - first <= 20 ? rounds : niceTicks(first, last, 10).filter(Number.isInteger);
  const parts = [
    `<line class="axis" x1="${coord(box.left)}" x2="${coord(box.right)}" y1="${coord(box.bottom)}" y2="${coord(box.bottom)}" stroke="#9ca3af"/>`,
  ];
  for (const round of new Set(ticks))
    parts.push(
      `<line x1="${coord(x(round))}" x2="${coord(x(round))}" y1="${coord(box.bottom)}" y2="${coord(box.bottom + 4)}" stroke="#9ca3af"/>`,
      `<text class="x-tick" x="${coord(x(round))}" y="${coord(box.bottom + 15)}" text-anchor="middle" fill="#6b7280">${round}</text>`,
    );
  return parts.join("");
}

/** The SVG element around a plot's parts; the title is read by screen readers and shown as the tooltip. */
export function svgDocument(
  width: number,
  height: number,
  title: string,
  body: string,
  className = "",
): string {
  const cls = className ? ` class="${className}"` : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img"${cls} aria-label="${escapeHtml(title)}" font-family="system-ui, sans-serif" font-size="11"><title>${escapeHtml(title)}</title>${body}</svg>`;
}
