/**
 * The study's round diagnostics as small hand-written SVG panels, one per metric: the incumbent after each round
 * (line) and every proposal (dots), on objective, strict SA, relaxed SA, solve, false abstention and AbsRec@1; the
 * held-out diagnostic per round on the objective panel when the run took one; and tokens, cost and time per candidate as
 * bars. In the viewer every dot and bar links to its candidate. Pure: data in, markup out, every value escaped.
 */
import { escapeHtml } from "./html";

export interface DiagnosticCandidate {
  id: string;
  commit: string;
  round: number;
  accepted: boolean;
  metrics: Partial<Record<DiagnosticMetric, number | null>>;
  tokens: number;
  usd: number;
  /** Wall time of its search evaluation, first to last rollout stored. */
  seconds: number;
}

export type DiagnosticMetric =
  | "objective"
  | "strict_sa"
  | "relaxed_sa"
  | "solve"
  | "false_abstention"
  | "absrec1";

export const DIAGNOSTIC_METRICS: ReadonlyArray<{ key: DiagnosticMetric; label: string }> = [
  { key: "objective", label: "objective (search)" },
  { key: "strict_sa", label: "strict SA" },
  { key: "relaxed_sa", label: "relaxed SA" },
  { key: "solve", label: "feasible solve" },
  { key: "false_abstention", label: "false abstention (lower is better)" },
  { key: "absrec1", label: "AbsRec@1" },
];

export interface DiagnosticRound {
  round: number;
  /** The incumbent after the round (null while it runs). */
  incumbent: string | null;
  /** The held-out objective of that incumbent, when `heldout.per_round` recorded one. */
  heldout: number | null;
}

const W = 330;
const H = 170;
const M = { top: 26, right: 12, bottom: 26, left: 38 };
const fmt = (v: number) => Number(v.toFixed(2)).toString();

function panel(
  title: string,
  candidates: readonly DiagnosticCandidate[],
  rounds: readonly DiagnosticRound[],
  metric: DiagnosticMetric,
  link?: (commit: string) => string,
): string {
  const maxRound = Math.max(1, ...rounds.map((r) => r.round), ...candidates.map((c) => c.round));
  const x = (round: number) => M.left + (round / maxRound) * (W - M.left - M.right);
  const y = (v: number) => M.top + (1 - v) * (H - M.top - M.bottom);
  const byCommit = new Map(candidates.map((c) => [c.commit, c]));
  const parts: string[] = [`<text x="${M.left}" y="15" class="pt">${escapeHtml(title)}</text>`];
  for (const tick of [0, 0.5, 1])
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(tick)}" y2="${y(tick)}" class="grid"/><text x="${M.left - 5}" y="${y(tick) + 4}" class="tick" text-anchor="end">${fmt(tick)}</text>`,
    );
  for (const r of rounds)
    parts.push(`<text x="${x(r.round)}" y="${H - 8}" class="tick" text-anchor="middle">${r.round}</text>`);
  const line = rounds.flatMap((r) => {
    const v = r.incumbent ? byCommit.get(r.incumbent)?.metrics[metric] : null;
    return typeof v === "number" ? [`${x(r.round).toFixed(1)},${y(v).toFixed(1)}`] : [];
  });
  if (line.length > 1) parts.push(`<polyline points="${line.join(" ")}" class="inc"/>`);
  if (metric === "objective") {
    const held = rounds.flatMap((r) =>
      r.heldout === null ? [] : [`${x(r.round).toFixed(1)},${y(r.heldout).toFixed(1)}`],
    );
    if (held.length > 0) parts.push(`<polyline points="${held.join(" ")}" class="held"/>`);
  }
  for (const c of candidates) {
    const v = c.metrics[metric];
    if (typeof v !== "number") continue;
    const dot = `<circle cx="${x(c.round).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3.5" class="${c.accepted ? "acc" : "prop"}"><title>${escapeHtml(`${c.id} ${c.commit.slice(0, 10)}: ${v.toFixed(3)}`)}</title></circle>`;
    parts.push(link ? `<a href="${escapeHtml(link(c.commit))}">${dot}</a>` : dot);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(title)}">${parts.join("")}</svg>`;
}

function bars(
  title: string,
  candidates: readonly DiagnosticCandidate[],
  value: (c: DiagnosticCandidate) => number,
  label: (v: number) => string,
  link?: (commit: string) => string,
): string {
  const width = Math.max(W, M.left + candidates.length * 14 + M.right);
  const max = Math.max(1e-9, ...candidates.map(value));
  const step = (width - M.left - M.right) / Math.max(1, candidates.length);
  const parts: string[] = [
    `<text x="${M.left}" y="15" class="pt">${escapeHtml(title)}</text>`,
    `<text x="${M.left - 5}" y="${M.top + 4}" class="tick" text-anchor="end">${escapeHtml(label(max))}</text>`,
  ];
  candidates.forEach((c, i) => {
    const h = (value(c) / max) * (H - M.top - M.bottom);
    const rect = `<rect x="${(M.left + i * step + 1).toFixed(1)}" y="${(H - M.bottom - h).toFixed(1)}" width="${Math.max(2, step - 2).toFixed(1)}" height="${h.toFixed(1)}" class="${c.accepted ? "acc" : "prop"}"><title>${escapeHtml(`${c.id}: ${label(value(c))}`)}</title></rect>`;
    parts.push(link ? `<a href="${escapeHtml(link(c.commit))}">${rect}</a>` : rect);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${H}" width="${width}" height="${H}" role="img" aria-label="${escapeHtml(title)}">${parts.join("")}</svg>`;
}

const STYLE =
  "<style>.pt{font:600 12px system-ui,sans-serif;fill:#1f2328}.tick{font:10px system-ui,sans-serif;fill:#8c959f}.grid{stroke:#eaeef2}.inc{fill:none;stroke:#3b5b8c;stroke-width:2}.held{fill:none;stroke:#9a6700;stroke-width:1.5;stroke-dasharray:4 3}.acc{fill:#2f7d4f}.prop{fill:#fff;stroke:#8a8f96;stroke-width:1.2}rect.prop{fill:#c9ccd1;stroke:none}</style>";

/** Every panel, each its own small SVG (they wrap to the page's width). */
export function diagnosticsSvgs(
  candidates: readonly DiagnosticCandidate[],
  rounds: readonly DiagnosticRound[],
  link?: (commit: string) => string,
): string[] {
  const panels = DIAGNOSTIC_METRICS.map(({ key, label }) =>
    panel(
      key === "objective" && rounds.some((r) => r.heldout !== null) ? `${label} · held-out dashed` : label,
      candidates,
      rounds,
      key,
      link,
    ),
  );
  panels.push(
    bars(
      "tokens per candidate",
      candidates,
      (c) => c.tokens,
      (v) => `${Math.round(v).toLocaleString("en-US")} tokens`,
      link,
    ),
    bars(
      "cost per candidate",
      candidates,
      (c) => c.usd,
      (v) => `$${v.toFixed(4)}`,
      link,
    ),
    bars(
      "time per candidate",
      candidates,
      (c) => c.seconds,
      (v) => `${Math.round(v)} s`,
      link,
    ),
  );
  return panels.map((svg) => svg.replace(">", `>${STYLE}`));
}
