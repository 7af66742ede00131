/** Seed against the final harness: headline figures, blocked rates per family, feasible solve and false abstention. */
import { FAMILIES, type Family } from "../../domain/task";
import { type Comparison, type Difference, difference, wilson } from "../compare";
import { fmtRate } from "../format";
import { type Html, html } from "../html";
import type { HarnessResults } from "../report-data";
import {
  BLOCKED_METRICS,
  blockedMetric,
  blockedRates,
  feasibleMetric,
  type SummaryView,
} from "../summary-view";

type Split = "search" | "heldout" | "independent";
const SPLIT_LABEL: Record<Split, string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
};

function roleLabel(results: HarnessResults): string {
  return results.role === "seed" ? "seed" : results.role;
}

/**
 * The final value as it is: these tables carry no counts, so they colour nothing; "Seed vs final by suite" gives
 * each difference with its interval and colours only those whose interval excludes 0.
 */
function compared(_seed: number | null, final: number | null, _lowerIsBetter = false): Html {
  return final === null ? html`–` : html`${fmtRate(final)}`;
}

/** A headline figure; coloured only when the difference's 95% interval (from the episodes) excludes 0. */
function card(label: string, seed: number | null, final: number | null, interval?: Difference): Html {
  const cls = interval?.clear && interval.delta !== null ? (interval.delta > 0 ? "better" : "worse") : "";
  const ci =
    interval && interval.low !== null && interval.high !== null
      ? html`<div class="ci">Δ 95% [${interval.low.toFixed(2)}, ${interval.high.toFixed(2)}]</div>`
      : "";
  return html`<div class="card"><div class="label">${label}</div><div class="value"><span class="from">${fmtRate(seed)} → </span><span class="${cls}">${fmtRate(final)}</span></div>${ci}</div>`;
}

/** The pooled difference of one split and metric (the "all" row, or the only suite's), or the objective's. */
function pooled(
  comparisons: readonly Comparison[],
  purpose: string,
  metric: "strict_sa" | "solve" | "objective",
): Difference | undefined {
  const c = comparisons.find((x) => x.purpose === purpose);
  if (!c) return undefined;
  const suites = new Set(c.bySuite.map((g) => g.group));
  const group = suites.has("all") ? "all" : [...suites][0];
  const row = (m: string) => c.bySuite.find((g) => g.group === group && g.metric === m);
  if (metric !== "objective") return row(metric);
  const parts = [row("strict_sa"), row("solve")].filter((g): g is NonNullable<typeof g> => g !== undefined);
  const sum = (side: "before" | "after") =>
    wilson(
      parts.reduce((k, g) => k + g[side].k, 0),
      parts.reduce((n, g) => n + g[side].n, 0),
    );
  return parts.length > 0 ? difference(sum("before"), sum("after")) : undefined;
}

export function renderHeadline(
  seed: HarnessResults | null,
  final: HarnessResults | null,
  comparisons: readonly Comparison[] = [],
): Html {
  if (!seed || !final) return html``;
  const pick = (split: Split, value: (view: SummaryView | null) => number | null) =>
    [value(seed[split]), value(final[split])] as const;
  const objective = (view: SummaryView | null) => view?.objective ?? null;
  const strict = (view: SummaryView | null) => blockedMetric(blockedRates(view), "strict_sa");
  const solve = (view: SummaryView | null) => feasibleMetric(view, "solve");
  const cards = [
    card("search objective", ...pick("search", objective), pooled(comparisons, "search", "objective")),
    card("held-out objective", ...pick("heldout", objective), pooled(comparisons, "heldout", "objective")),
    card("held-out strict SA", ...pick("heldout", strict), pooled(comparisons, "heldout", "strict_sa")),
    card("held-out feasible solve", ...pick("heldout", solve), pooled(comparisons, "heldout", "solve")),
    card("independent solve", ...pick("independent", solve), pooled(comparisons, "independent", "solve")),
  ];
  return html`<div class="cards">${cards}</div><p class="muted small">Each figure reads seed → ${roleLabel(final)}; green is better and orange worse only when the difference's 95% interval excludes 0.</p>`;
}

export function renderBlockedTable(
  seed: HarnessResults,
  final: HarnessResults,
  split: "search" | "heldout",
): Html {
  const seedView = seed[split];
  const finalView = final[split];
  if (!seedView?.blocked && !finalView?.blocked)
    return html`<p class="muted">No blocked episodes on the ${SPLIT_LABEL[split]} split yet.</p>`;
  const groups: Array<{ label: string; family?: Family }> = [
    { label: "all blocked" },
    ...FAMILIES.map((family) => ({ label: family, family })),
  ];
  const count = (view: SummaryView | null, family?: Family) => blockedRates(view, family)?.n;
  const head = html`<tr><th rowspan="2">metric</th>${groups.map(
    (g) =>
      html`<th class="group" colspan="2">${g.label} <span class="muted">(n ${String(count(finalView, g.family) ?? count(seedView, g.family) ?? "–")})</span></th>`,
  )}</tr><tr>${groups.map(() => html`<th class="num first">seed</th><th class="num">${roleLabel(final)}</th>`)}</tr>`;
  const rows = BLOCKED_METRICS.map(({ key, label, lowerIsBetter }) => {
    const cells = groups.map((g) => {
      const before = blockedMetric(blockedRates(seedView, g.family), key);
      const after = blockedMetric(blockedRates(finalView, g.family), key);
      return html`<td class="num first">${fmtRate(before)}</td><td class="num sel">${compared(before, after, lowerIsBetter)}</td>`;
    });
    return html`<tr><td>${label}</td>${cells}</tr>`;
  });
  return html`<table class="metrics"><thead>${head}</thead><tbody>${rows}</tbody></table>`;
}

export function renderFeasibleTable(seed: HarnessResults, final: HarnessResults): Html {
  const splits: Split[] = ["search", "heldout", "independent"];
  const rows = splits.map((split) => {
    const n = feasibleMetric(final[split], "n") ?? feasibleMetric(seed[split], "n");
    const solve = [feasibleMetric(seed[split], "solve"), feasibleMetric(final[split], "solve")] as const;
    const abstain = [
      feasibleMetric(seed[split], "false_abstention"),
      feasibleMetric(final[split], "false_abstention"),
    ] as const;
    return html`<tr><td>${SPLIT_LABEL[split]}</td><td class="num">${n === null ? "–" : String(n)}</td>
<td class="num first">${fmtRate(solve[0])}</td><td class="num sel">${compared(...solve)}</td>
<td class="num first">${fmtRate(abstain[0])}</td><td class="num sel">${compared(abstain[0], abstain[1], true)}</td></tr>`;
  });
  return html`<table class="metrics"><thead>
<tr><th rowspan="2">split</th><th class="num" rowspan="2">n</th><th class="group" colspan="2">feasible solve</th><th class="group" colspan="2">false abstention</th></tr>
<tr><th class="num first">seed</th><th class="num">${roleLabel(final)}</th><th class="num first">seed</th><th class="num">${roleLabel(final)}</th></tr>
</thead><tbody>${rows}</tbody></table>`;
}
