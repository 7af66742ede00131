/**
 * The score plot of a run as hand-written SVG: the incumbent's search score after each round as a step line, each
 * proposal's search score as a dot coloured by its verdict, and the held-out diagnostic when a run recorded one.
 * Pure: data in, markup out; no value from the data reaches the markup unescaped.
 */
import { escapeHtml } from "./html";
import { coord, niceTicks, roundAxis, roundScale, svgDocument, yGrid } from "./svg-axes";

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

export { niceTicks };

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

const isScore = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

const f = coord;

export function scorePlotSvg(rounds: readonly PlotRound[], options: PlotOptions = {}): string {
  const width = options.width ?? 1040;
  const height = options.height ?? 320;
  const title = options.title ?? "Search score per round";
  const scores = rounds.flatMap((round) => [
    round.incumbent,
    round.heldout ?? null,
    ...round.proposals.map((proposal) => proposal.score),
  ]);
  const values = scores.filter(isScore);
  if (rounds.length === 0 || values.length === 0)
    return svgDocument(
      width,
      height,
      title,
      `<text x="${f(width / 2)}" y="${f(height / 2)}" text-anchor="middle" fill="#6b7280">no scores yet</text>`,
      "score-plot",
    );

  const box = {
    left: MARGIN.left,
    right: width - MARGIN.right,
    top: MARGIN.top,
    bottom: height - MARGIN.bottom,
  };
  const roundNumbers = rounds.map((round) => round.round);
  // One round alone sits in the middle; otherwise half a slot of room on each side for the dots' spread.
  const { x, slot } = roundScale(roundNumbers, box);
  const [lo, hi] = scoreDomain(values);
  const y = (value: number) => box.bottom - ((value - lo) / (hi - lo || 1)) * (box.bottom - box.top);

  const parts: string[] = [yGrid(niceTicks(lo, hi, 5), y, box), roundAxis(roundNumbers, x, box)];
  parts.push(
    `<text x="${f((box.left + box.right) / 2)}" y="${f(height - 6)}" text-anchor="middle" fill="#4b5563">round</text>`,
    `<text transform="translate(12 ${f((box.top + box.bottom) / 2)}) rotate(-90)" text-anchor="middle" fill="#4b5563">search score</text>`,
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

  parts.push(legend(rounds, box.left));
  return svgDocument(width, height, title, parts.join(""), "score-plot");
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
