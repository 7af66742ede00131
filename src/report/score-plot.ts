/**
 * The score plot of a run as hand-written SVG: the incumbent's search score after each round as a step line, each
 * proposal's search score as a dot coloured by its verdict, and the held-out diagnostic when a run recorded one.
 * Pure: data in, markup out; no value from the data reaches the markup unescaped.
 */
import { escapeHtml } from "./html";

export type PlotVerdict = "seed" | "accepted" | "rejected" | "indecisive" | "screened_out" | "pending";

export interface PlotProposal {
  id: string;
  score: number | null;
  verdict: PlotVerdict;
}

export interface PlotRound {
  round: number;
  /** The incumbent's search score after the round; null while the round is still running. */
  incumbent: number | null;
  proposals: readonly PlotProposal[];
  /** A per-round held-out diagnostic of the incumbent, when the run took one. */
  heldout?: number | null;
}

export interface PlotOptions {
  width?: number;
  height?: number;
  /** Read by screen readers and shown as the tooltip of the whole plot. */
  title?: string;
}

const MARGIN = { top: 34, right: 18, bottom: 40, left: 50 };

const DOT_STYLE: Record<PlotVerdict, { fill: string; stroke: string; r: number }> = {
  seed: { fill: "#3b4a5a", stroke: "#3b4a5a", r: 4.5 },
  accepted: { fill: "#2f7d4f", stroke: "#2f7d4f", r: 5 },
  rejected: { fill: "#ffffff", stroke: "#8a8f96", r: 4.5 },
  indecisive: { fill: "#ffffff", stroke: "#b7791f", r: 4.5 },
  screened_out: { fill: "#c9ccd1", stroke: "#c9ccd1", r: 3 },
  pending: { fill: "#ffffff", stroke: "#5a7bb5", r: 4.5 },
};

const LEGEND: Array<{ verdict: PlotVerdict; label: string }> = [
  { verdict: "accepted", label: "accepted" },
  { verdict: "rejected", label: "rejected" },
  { verdict: "indecisive", label: "indecisive" },
  { verdict: "screened_out", label: "screened out" },
  { verdict: "pending", label: "pending" },
];

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

/** The y range: the data with a little room, snapped to round values, kept inside [0, 1] for rates. */
export function scoreDomain(values: readonly number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  const pad = hi > lo ? (hi - lo) * 0.12 : 0.05;
  lo -= pad;
  hi += pad;
  const snap = hi - lo > 0.5 ? 0.1 : 0.05;
  lo = Math.floor(lo / snap + 1e-9) * snap;
  hi = Math.ceil(hi / snap - 1e-9) * snap;
  const rates = finite.every((value) => value >= 0 && value <= 1);
  if (rates) {
    lo = Math.max(0, lo);
    hi = Math.min(1, hi);
  }
  return [Number(lo.toFixed(10)), Number(hi.toFixed(10))];
}

function decimalsFor(ticks: readonly number[]): number {
  const step = ticks.length > 1 ? Math.abs((ticks[1] as number) - (ticks[0] as number)) : 0.1;
  return step >= 1 ? 0 : Math.min(4, Math.ceil(-Math.log10(step) - 1e-9));
}

const isScore = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

const f = (value: number) => (Math.round(value * 10) / 10).toString();

export function scorePlotSvg(rounds: readonly PlotRound[], options: PlotOptions = {}): string {
  const width = options.width ?? 1040;
  const height = options.height ?? 320;
  const title = escapeHtml(options.title ?? "Search score per round");
  const open = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" class="score-plot" font-family="system-ui, sans-serif" font-size="11"><title>${title}</title>`;
  const scores = rounds.flatMap((round) => [
    round.incumbent,
    round.heldout ?? null,
    ...round.proposals.map((proposal) => proposal.score),
  ]);
  const values = scores.filter(isScore);
  if (rounds.length === 0 || values.length === 0) {
    return `${open}<text x="${f(width / 2)}" y="${f(height / 2)}" text-anchor="middle" fill="#6b7280">no scores yet</text></svg>`;
  }

  const plotLeft = MARGIN.left;
  const plotRight = width - MARGIN.right;
  const plotTop = MARGIN.top;
  const plotBottom = height - MARGIN.bottom;
  const roundNumbers = rounds.map((round) => round.round);
  const firstRound = Math.min(...roundNumbers);
  const lastRound = Math.max(...roundNumbers);
  // One round alone sits in the middle; otherwise half a slot of room on each side for the dots' spread.
  const span = lastRound - firstRound;
  const slot = (plotRight - plotLeft) / (span + 1);
  const x = (round: number) => plotLeft + slot / 2 + (round - firstRound) * slot;
  const [lo, hi] = scoreDomain(values);
  const y = (value: number) => plotBottom - ((value - lo) / (hi - lo || 1)) * (plotBottom - plotTop);

  const parts: string[] = [open];
  // Grid and y axis.
  const yTicks = niceTicks(lo, hi, 5);
  const decimals = decimalsFor(yTicks);
  for (const tick of yTicks) {
    parts.push(
      `<line class="grid" x1="${f(plotLeft)}" x2="${f(plotRight)}" y1="${f(y(tick))}" y2="${f(y(tick))}" stroke="#e6e7ea"/>`,
      `<text class="y-tick" x="${f(plotLeft - 8)}" y="${f(y(tick) + 3.5)}" text-anchor="end" fill="#6b7280">${tick.toFixed(decimals)}</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${f(plotLeft)}" x2="${f(plotRight)}" y1="${f(plotBottom)}" y2="${f(plotBottom)}" stroke="#9ca3af"/>`,
  );
  // X axis: every round when they fit, otherwise round-numbered steps.
  const xTicks = span <= 20 ? roundNumbers : niceTicks(firstRound, lastRound, 10).filter(Number.isInteger);
  for (const round of new Set(xTicks)) {
    parts.push(
      `<line x1="${f(x(round))}" x2="${f(x(round))}" y1="${f(plotBottom)}" y2="${f(plotBottom + 4)}" stroke="#9ca3af"/>`,
      `<text class="x-tick" x="${f(x(round))}" y="${f(plotBottom + 16)}" text-anchor="middle" fill="#6b7280">${round}</text>`,
    );
  }
  parts.push(
    `<text x="${f((plotLeft + plotRight) / 2)}" y="${f(height - 6)}" text-anchor="middle" fill="#4b5563">round</text>`,
    `<text transform="translate(12 ${f((plotTop + plotBottom) / 2)}) rotate(-90)" text-anchor="middle" fill="#4b5563">search score</text>`,
  );

  // Held-out diagnostic (dashed), then the incumbent as a step line: flat through a round, up where one was accepted.
  parts.push(
    stepLine(rounds, (round) => round.heldout ?? null, x, y, 'stroke="#7c6fb0" stroke-dasharray="4 3"'),
  );
  parts.push(stepLine(rounds, (round) => round.incumbent, x, y, 'stroke="#3b4a5a" stroke-width="2"'));

  for (const round of rounds) {
    const scored = round.proposals.filter((p) => p.verdict !== "seed" && isScore(p.score));
    scored.forEach((proposal, index) => {
      const style = DOT_STYLE[proposal.verdict];
      const offset = (index - (scored.length - 1) / 2) * Math.min(9, slot / (scored.length + 1));
      const score = proposal.score as number;
      const label = escapeHtml(`${proposal.id}: ${score.toFixed(3)} (${proposal.verdict.replace("_", " ")})`);
      parts.push(
        `<circle class="proposal ${proposal.verdict}" cx="${f(x(round.round) + offset)}" cy="${f(y(score))}" r="${style.r}" fill="${style.fill}" stroke="${style.stroke}" stroke-width="1.5"><title>${label}</title></circle>`,
      );
    });
    if (isScore(round.incumbent)) {
      const label = escapeHtml(`incumbent after round ${round.round}: ${round.incumbent.toFixed(3)}`);
      parts.push(
        `<circle class="incumbent" cx="${f(x(round.round))}" cy="${f(y(round.incumbent))}" r="2.5" fill="#3b4a5a"><title>${label}</title></circle>`,
      );
    }
  }

  parts.push(legend(rounds, plotLeft));
  parts.push("</svg>");
  return parts.join("");
}

function stepLine(
  rounds: readonly PlotRound[],
  value: (round: PlotRound) => number | null,
  x: (round: number) => number,
  y: (value: number) => number,
  style: string,
): string {
  let path = "";
  let previous: number | null = null;
  for (const round of rounds) {
    const current = value(round);
    if (!isScore(current)) {
      previous = null;
      continue;
    }
    path +=
      previous === null ? `M${f(x(round.round))} ${f(y(current))}` : `H${f(x(round.round))}V${f(y(current))}`;
    previous = current;
  }
  return path === "" ? "" : `<path d="${path}" fill="none" ${style}/>`;
}

function legend(rounds: readonly PlotRound[], left: number): string {
  const used = new Set(
    rounds.flatMap((round) =>
      round.proposals.filter((proposal) => isScore(proposal.score)).map((proposal) => proposal.verdict),
    ),
  );
  const hasHeldout = rounds.some((round) => isScore(round.heldout));
  const items: string[] = [];
  let cursor = left;
  const add = (mark: string, label: string) => {
    items.push(mark, `<text x="${f(cursor + 16)}" y="16" fill="#4b5563">${escapeHtml(label)}</text>`);
    cursor += 24 + label.length * 6;
  };
  add(
    `<line x1="${f(cursor)}" x2="${f(cursor + 12)}" y1="12" y2="12" stroke="#3b4a5a" stroke-width="2"/>`,
    "incumbent",
  );
  if (hasHeldout)
    add(
      `<line x1="${f(cursor)}" x2="${f(cursor + 12)}" y1="12" y2="12" stroke="#7c6fb0" stroke-dasharray="4 3"/>`,
      "held-out diagnostic",
    );
  for (const { verdict, label } of LEGEND) {
    if (!used.has(verdict)) continue;
    const style = DOT_STYLE[verdict];
    add(
      `<circle cx="${f(cursor + 6)}" cy="12" r="${style.r}" fill="${style.fill}" stroke="${style.stroke}" stroke-width="1.5"/>`,
      label,
    );
  }
  return `<g class="legend">${items.join("")}</g>`;
}
