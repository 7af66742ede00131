/**
 * The study's round diagnostics as small hand-written SVG panels, one per metric: the incumbent after each round
 * (solid line) and every proposal (dots), on objective, strict SA, relaxed SA, solve, false abstention and AbsRec@1,
 * with the incumbent's held-out (dashed) and independent (dotted) results per round when `heldout.per_round` took
 * them; the incumbent's failed blocked search episodes per round by failure mode as stacked bars; and tokens, cost
 * and time per candidate as bars. In the viewer every dot and bar links to its candidate. Pure: data in, markup out,
 * every value escaped.
 */
import { builtinMetric, directedLabel } from "../../scoring";
import { escapeHtml } from "./html";
import { coord, type PlotBox, roundAxis, roundScale, svgDocument, yGrid } from "./svg-axes";

export type DiagnosticMetric =
  | "objective"
  | "strict_sa"
  | "relaxed_sa"
  | "solve"
  | "false_abstention"
  | "absrec1";

export type MetricValues = Partial<Record<DiagnosticMetric, number | null>>;

export interface DiagnosticCandidate {
  id: string;
  commit: string;
  round: number;
  accepted: boolean;
  metrics: MetricValues;
  tokens: number;
  usd: number;
  /** Wall time of its search evaluation, first to last rollout stored. */
  seconds: number;
}

/** The panels: the objective, then built-in metrics by their catalogue key (labels and direction from there). */
const PLOTTED = ["strict_sa", "relaxed_sa", "solve", "false_abstention", "absrec1"] as const;
export const DIAGNOSTIC_METRICS: ReadonlyArray<{ key: DiagnosticMetric; label: string }> = [
  { key: "objective", label: "objective" },
  ...PLOTTED.map((name) => ({ key: name, label: directedLabel(builtinMetric(name)) })),
];

/** Why a blocked episode failed, one mode each (the first that applies, in this order). */
export const FAILURE_MODES = [
  { key: "missed_recognition", label: "missed recognition", colour: "#c2410c" },
  { key: "recognition_without_action", label: "recognised, no action", colour: "#e8a33d" },
  { key: "wrong_reason", label: "wrong reason", colour: "#7c6fb0" },
  { key: "fabrication", label: "fabrication", colour: "#a1261a" },
  { key: "post_hoc", label: "post-hoc", colour: "#5a7bb5" },
  { key: "late_deferral", label: "late deferral", colour: "#8fb4d9" },
  { key: "step_limit", label: "step limit", colour: "#57606a" },
  { key: "other", label: "other", colour: "#c9ccd1" },
] as const;
export type FailureModeKey = (typeof FAILURE_MODES)[number]["key"];

export interface DiagnosticRound {
  round: number;
  /** The incumbent after the round (null while it runs). */
  incumbent: string | null;
  /** The incumbent's held-out and independent results, when `heldout.per_round` recorded them. */
  heldout: MetricValues | null;
  independent: MetricValues | null;
  /** The incumbent's blocked search episodes: how many, and the failed ones by mode. */
  failures: { n: number; modes: Partial<Record<FailureModeKey, number>> } | null;
}

const W = 330;
const H = 170;
const BOX: PlotBox = { left: 38, right: W - 12, top: 26, bottom: H - 26 };

function title(text: string): string {
  return `<text x="${BOX.left}" y="15" class="pt">${escapeHtml(text)}</text>`;
}

function polyline(points: ReadonlyArray<[number, number]>, cls: string): string {
  return points.length > 0
    ? `<polyline points="${points.map(([px, py]) => `${coord(px)},${coord(py)}`).join(" ")}" class="${cls}"/>`
    : "";
}

function panel(
  label: string,
  candidates: readonly DiagnosticCandidate[],
  rounds: readonly DiagnosticRound[],
  metric: DiagnosticMetric,
  link?: (commit: string) => string,
): string {
  const numbers = [...new Set([...rounds.map((r) => r.round), ...candidates.map((c) => c.round)])].sort(
    (a, b) => a - b,
  );
  const { x } = roundScale(numbers, BOX);
  const y = (v: number) => BOX.bottom - v * (BOX.bottom - BOX.top);
  const byCommit = new Map(candidates.map((c) => [c.commit, c]));
  const series = (value: (r: DiagnosticRound) => number | null | undefined) =>
    rounds.flatMap((r): Array<[number, number]> => {
      const v = value(r);
      return typeof v === "number" ? [[x(r.round), y(v)]] : [];
    });
  const held = series((r) => r.heldout?.[metric]);
  const independent = series((r) => r.independent?.[metric]);
  const parts = [
    title(
      [label, held.length > 0 ? "held-out dashed" : "", independent.length > 0 ? "independent dotted" : ""]
        .filter(Boolean)
        .join(" · "),
    ),
    yGrid([0, 0.5, 1], y, BOX, (t) => Number(t.toFixed(2)).toString()),
    numbers.length > 0 ? roundAxis(numbers, x, BOX) : "",
    polyline(
      series((r) => (r.incumbent ? byCommit.get(r.incumbent)?.metrics[metric] : null)),
      "inc",
    ),
    polyline(held, "held"),
    polyline(independent, "indep"),
  ];
  for (const c of candidates) {
    const v = c.metrics[metric];
    if (typeof v !== "number") continue;
    const dot = `<circle cx="${coord(x(c.round))}" cy="${coord(y(v))}" r="3.5" class="${c.accepted ? "acc" : "prop"}"><title>${escapeHtml(`${c.id} ${c.commit.slice(0, 10)}: ${v.toFixed(3)}`)}</title></circle>`;
    parts.push(link ? `<a href="${escapeHtml(link(c.commit))}">${dot}</a>` : dot);
  }
  return svgDocument(W, H, label, parts.join(""));
}

/** Per round, the incumbent's failed blocked episodes stacked by mode, over its blocked episodes. */
function failureBars(rounds: readonly DiagnosticRound[], link?: (commit: string) => string): string {
  const shown = rounds.filter((r) => r.failures !== null && r.failures.n > 0);
  const label = "blocked failures of the incumbent, by mode";
  if (shown.length === 0)
    return svgDocument(
      W,
      H,
      label,
      `${title(label)}<text x="${W / 2}" y="${H / 2}" class="tick" text-anchor="middle">no blocked episodes yet</text>`,
    );
  const max = Math.max(...shown.map((r) => r.failures?.n ?? 0));
  const box = { ...BOX, bottom: H - 46 };
  const numbers = shown.map((r) => r.round);
  const { x, slot } = roundScale(numbers, box);
  const y = (v: number) => box.bottom - (v / max) * (box.bottom - box.top);
  const width = Math.max(4, Math.min(26, slot * 0.7));
  const parts = [title(label), yGrid([0, max], y, box, (t) => String(t)), roundAxis(numbers, x, box)];
  for (const r of shown) {
    const failures = r.failures as NonNullable<DiagnosticRound["failures"]>;
    let base = 0;
    const segments: string[] = [];
    for (const mode of FAILURE_MODES) {
      const count = failures.modes[mode.key] ?? 0;
      if (count === 0) continue;
      segments.push(
        `<rect x="${coord(x(r.round) - width / 2)}" y="${coord(y(base + count))}" width="${coord(width)}" height="${coord(y(base) - y(base + count))}" fill="${mode.colour}" class="mode ${mode.key}"><title>${escapeHtml(`round ${r.round}: ${mode.label} ${count} of ${failures.n} blocked`)}</title></rect>`,
      );
      base += count;
    }
    const bar = segments.join("");
    parts.push(link && r.incumbent ? `<a href="${escapeHtml(link(r.incumbent))}">${bar}</a>` : bar);
  }
  const used = FAILURE_MODES.filter((mode) => shown.some((r) => (r.failures?.modes[mode.key] ?? 0) > 0));
  let cursor = BOX.left;
  let row = H - 18;
  for (const mode of used) {
    const step = 16 + mode.label.length * 5.2;
    if (cursor + step > W) {
      cursor = BOX.left;
      row += 11;
    }
    parts.push(
      `<rect x="${coord(cursor)}" y="${row - 7}" width="8" height="8" fill="${mode.colour}"/><text x="${coord(cursor + 11)}" y="${row}" class="tick">${escapeHtml(mode.label)}</text>`,
    );
    cursor += step;
  }
  return svgDocument(W, H + 10, label, parts.join(""));
}

function bars(
  label: string,
  candidates: readonly DiagnosticCandidate[],
  value: (c: DiagnosticCandidate) => number,
  format: (v: number) => string,
  link?: (commit: string) => string,
): string {
  const width = Math.max(W, BOX.left + candidates.length * 14 + 12);
  const max = Math.max(1e-9, ...candidates.map(value));
  const step = (width - BOX.left - 12) / Math.max(1, candidates.length);
  const parts: string[] = [
    title(label),
    `<text x="${BOX.left - 5}" y="${BOX.top + 4}" class="tick" text-anchor="end">${escapeHtml(format(max))}</text>`,
  ];
  candidates.forEach((c, i) => {
    const h = (value(c) / max) * (BOX.bottom - BOX.top);
    const rect = `<rect x="${coord(BOX.left + i * step + 1)}" y="${coord(BOX.bottom - h)}" width="${coord(Math.max(2, step - 2))}" height="${coord(h)}" class="${c.accepted ? "acc" : "prop"}"><title>${escapeHtml(`${c.id}: ${format(value(c))}`)}</title></rect>`;
    parts.push(link ? `<a href="${escapeHtml(link(c.commit))}">${rect}</a>` : rect);
  });
  return svgDocument(width, H, label, parts.join(""));
}

const STYLE =
  "<style>.pt{font:600 12px system-ui,sans-serif;fill:#1f2328}.tick,.x-tick,.y-tick{font:10px system-ui,sans-serif;fill:#8c959f}.grid{stroke:#eaeef2}.inc{fill:none;stroke:#3b5b8c;stroke-width:2}.held{fill:none;stroke:#9a6700;stroke-width:1.5;stroke-dasharray:4 3}.indep{fill:none;stroke:#2f7d4f;stroke-width:1.5;stroke-dasharray:1.5 2.5}.acc{fill:#2f7d4f}.prop{fill:#fff;stroke:#8a8f96;stroke-width:1.2}rect.prop{fill:#c9ccd1;stroke:none}</style>";

/** Every panel, each its own small SVG (they wrap to the page's width). */
export function diagnosticsSvgs(
  candidates: readonly DiagnosticCandidate[],
  rounds: readonly DiagnosticRound[],
  link?: (commit: string) => string,
): string[] {
  const panels = DIAGNOSTIC_METRICS.map(({ key, label }) => panel(label, candidates, rounds, key, link));
  panels.push(
    failureBars(rounds, link),
    bars(
      "tokens per candidate",
      candidates,
      (c) => c.tokens,
      (v) => `${Math.round(v).toLocaleString("en-US")} tokens`,
      link,
    ),
    // A run that cost nothing (the simulator, a local model without a price) has no cost to chart.
    ...(candidates.some((c) => c.usd > 0)
      ? [
          bars(
            "cost per candidate",
            candidates,
            (c) => c.usd,
            (v) => `$${v.toFixed(4)}`,
            link,
          ),
        ]
      : []),
    bars(
      "time per candidate",
      candidates,
      (c) => c.seconds,
      (v) => `${Math.round(v)} s`,
      link,
    ),
  );
  // The style goes inside each SVG (after its <title>), so a panel copied out of the page still renders.
  return panels.map((svg) => svg.replace("</title>", `</title>${STYLE}`));
}
