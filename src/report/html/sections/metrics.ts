/** Seed against the final harness: headline figures, blocked rates per family, feasible solve and false abstention. */
import { FAMILIES, type Family } from "../../../domain";
import { builtinMetricsOf } from "../../../scoring";
import {
  type Comparison,
  type Difference,
  type Rate,
  summaryRate,
  unpairedDifference,
} from "../../model/compare";
import type { HarnessResults } from "../../model/report-data";
import {
  BLOCKED_METRICS,
  blockedMetric,
  blockedRates,
  feasibleMetric,
  type SummaryView,
} from "../../model/summary-view";
import { fmtRate, num } from "../format";
import { type Html, html } from "../html";
import { deltaCell, rateCell } from "./comparison";

type Split = "search" | "heldout" | "independent";
const SPLIT_LABEL: Record<Split, string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
};

function roleLabel(results: HarnessResults): string {
  return results.role === "seed" ? "seed" : results.role;
}

/** Seed, final and their difference stacked in one cell; Δ coloured only when its interval excludes 0. */
function comparedCell(
  before: Rate | null,
  after: Rate | null,
  finalLabel: string,
  lowerIsBetter = false,
): Html {
  const line = (label: string, rate: Rate | null) =>
    html`<div class="side"><span class="muted small">${label}</span> ${rate ? rateCell(rate) : "–"}</div>`;
  const delta =
    before && after
      ? html`<div class="side delta"><span class="muted small">Δ</span> ${deltaCell(unpairedDifference(before, after), lowerIsBetter)}</div>`
      : "";
  return html`${line("seed", before)}${line(finalLabel, after)}${delta}`;
}

/** A mean that is not a count (SPL): the value and its n, and no interval. */
function meanCell(before: number | null, after: number | null, n: number | null, finalLabel: string): Html {
  const kn = n === null ? "" : html` <span class="kn">n ${String(n)}</span>`;
  return html`<div class="side"><span class="muted small">seed</span> ${fmtRate(before)}${kn}</div><div class="side"><span class="muted small">${finalLabel}</span> ${fmtRate(after)}${kn}</div>`;
}

/** A headline figure; coloured only when the difference's 95% interval (from the episodes) excludes 0. */
function card(label: string, seed: number | null, final: number | null, interval?: Difference): Html {
  const cls = interval?.clear && interval.delta !== null ? (interval.delta > 0 ? "better" : "worse") : "";
  const ci =
    interval && interval.low !== null && interval.high !== null
      ? html`<div class="ci">Δ 95% [${interval.low.toFixed(2)}, ${interval.high.toFixed(2)}]</div>`
      : "";
  const kn =
    interval && interval.before.n > 0 && interval.after.n > 0
      ? html`<div class="kn">${interval.before.k}/${interval.before.n} → ${interval.after.k}/${interval.after.n} episodes</div>`
      : "";
  return html`<div class="card"><div class="label">${label}</div><div class="value"><span class="from">${fmtRate(seed)} → </span><span class="${cls}">${fmtRate(final)}</span></div>${kn}${ci}</div>`;
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
  return metric === "objective" ? (c.paired > 0 ? c.pass : undefined) : row(metric);
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
  const count = (view: SummaryView | null, family?: Family) => num(blockedRates(view, family)?.n);
  const head = html`<tr><th>metric</th>${groups.map(
    (g) =>
      html`<th class="group">${g.label} <span class="muted">(n ${String(count(finalView, g.family) ?? count(seedView, g.family) ?? "–")})</span></th>`,
  )}</tr>`;
  const rows = BLOCKED_METRICS.map(({ name: key, label, higherIsBetter, reducer }) => {
    const cells = groups.map((g) => {
      const before = blockedMetric(blockedRates(seedView, g.family), key);
      const after = blockedMetric(blockedRates(finalView, g.family), key);
      const n = count(finalView, g.family) ?? count(seedView, g.family);
      if (reducer === "mean")
        return html`<td class="num cmp">${meanCell(before, after, n, roleLabel(final))}</td>`;
      return html`<td class="num cmp">${comparedCell(
        summaryRate(before, count(seedView, g.family)),
        summaryRate(after, count(finalView, g.family)),
        roleLabel(final),
        !higherIsBetter,
      )}</td>`;
    });
    return html`<tr><td>${label}</td>${cells}</tr>`;
  });
  return html`<div class="table-scroll"><table class="metrics"><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
}

/** The feasible table's columns: every built-in metric of feasible episodes, from the catalogue. */
const FEASIBLE_METRICS = builtinMetricsOf("feasible");

export function renderFeasibleTable(seed: HarnessResults, final: HarnessResults): Html {
  const splits: Split[] = ["search", "heldout", "independent"];
  const rows = splits.map((split) => {
    const n = (results: HarnessResults) => feasibleMetric(results[split], "n");
    const total = n(final) ?? n(seed);
    const cells = FEASIBLE_METRICS.map(
      (metric) =>
        html`<td class="num cmp">${comparedCell(
          summaryRate(feasibleMetric(seed[split], metric.name), n(seed)),
          summaryRate(feasibleMetric(final[split], metric.name), n(final)),
          roleLabel(final),
          !metric.higherIsBetter,
        )}</td>`,
    );
    return html`<tr><td>${SPLIT_LABEL[split]}</td><td class="num">${total === null ? "–" : String(total)}</td>${cells}</tr>`;
  });
  const head = FEASIBLE_METRICS.map(
    (metric) =>
      html`<th class="group">${metric.label}${metric.higherIsBetter ? "" : html` <span class="muted">(lower is better)</span>`}</th>`,
  );
  return html`<table class="metrics"><thead>
<tr><th>split</th><th class="num">n</th>${head}</tr>
</thead><tbody>${rows}</tbody></table>`;
}
