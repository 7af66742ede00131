/** Seed against the final harness: headline figures, blocked rates per family, feasible solve and false abstention. */
import { FAMILIES, type Family } from "../../domain/task";
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

/** The final value, marked better or worse than the seed's. */
function compared(seed: number | null, final: number | null, lowerIsBetter = false): Html {
  if (final === null) return html`–`;
  if (seed === null || Math.abs(final - seed) < 1e-12) return html`${fmtRate(final)}`;
  const better = lowerIsBetter ? final < seed : final > seed;
  return html`<span class="${better ? "better" : "worse"}">${fmtRate(final)}</span>`;
}

function card(label: string, seed: number | null, final: number | null, lowerIsBetter = false): Html {
  return html`<div class="card"><div class="label">${label}</div><div class="value"><span class="from">${fmtRate(seed)} → </span>${compared(seed, final, lowerIsBetter)}</div></div>`;
}

export function renderHeadline(seed: HarnessResults | null, final: HarnessResults | null): Html {
  if (!seed || !final) return html``;
  const pick = (split: Split, value: (view: SummaryView | null) => number | null) =>
    [value(seed[split]), value(final[split])] as const;
  const objective = (view: SummaryView | null) => view?.objective ?? null;
  const strict = (view: SummaryView | null) => blockedMetric(blockedRates(view), "strict_sa");
  const solve = (view: SummaryView | null) => feasibleMetric(view, "solve");
  const cards = [
    card("search objective", ...pick("search", objective)),
    card("held-out objective", ...pick("heldout", objective)),
    card("held-out strict SA", ...pick("heldout", strict)),
    card("held-out feasible solve", ...pick("heldout", solve)),
    card("independent solve", ...pick("independent", solve)),
  ];
  return html`<div class="cards">${cards}</div><p class="muted small">Each figure reads seed → ${roleLabel(final)}; green is better, orange worse.</p>`;
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
