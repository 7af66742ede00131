/**
 * A comparison of two harnesses as HTML: per suite and per family, each side's rate with k/n and a 95% interval,
 * the difference with its interval (coloured only when the interval excludes 0), the flipped episodes (linked to
 * both trajectories side by side in the viewer) and the exact McNemar test on the flips.
 */

import { metricLabel, type PairedDelta, pairedIntervalText, pValueText } from "../../../scoring";
import type { Comparison, Difference, Flip, GroupDifference, Rate } from "../../model/compare";
import { fmtRate } from "../format";
import { type Html, html } from "../html";
import type { Links } from "../page";

const two = (value: number | null) => (value === null ? "–" : value.toFixed(2));

/** "0.656 21/32 [0.48, 0.80]" as three spans; without the value when it is shown beside already. */
export function rateCell(rate: Rate, options: { value?: boolean } = {}): Html {
  if (rate.n === 0) return html`<span class="muted">–</span>`;
  const counts = html`<span class="kn">${rate.k}/${rate.n}</span> <span class="ci">[${two(rate.low)}, ${two(rate.high)}]</span>`;
  return options.value === false ? counts : html`${fmtRate(rate.rate)} ${counts}`;
}

/** "+0.125 [−0.10, 0.35]": green or orange only when the interval excludes 0 (and says which way is better). */
export function deltaCell(
  d: Pick<Difference, "delta" | "low" | "high" | "clear">,
  lowerIsBetter = false,
): Html {
  const printed = pairedIntervalText(d);
  if (d.delta === null || printed === null) return html`<span class="muted">–</span>`;
  const [value, interval] = printed.split(" [") as [string, string];
  const text = html`${value} <span class="ci">[${interval}</span>`;
  if (!d.clear) return html`<span class="unclear" title="the 95% interval contains 0">${text}</span>`;
  const better = lowerIsBetter ? d.delta < 0 : d.delta > 0;
  return html`<span class="${better ? "better" : "worse"}">${text}</span>`;
}

const signed = (v: number) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(3)}`;

/** "+0.031 [−0.012, +0.074]": an objective's paired Δ, coloured only when its interval excludes 0. */
export function pairedDeltaCell(d: PairedDelta): Html {
  const text = html`${signed(d.delta)} <span class="ci">[${signed(d.low)}, ${signed(d.high)}]</span>`;
  const title = `mean over ${d.tasks} tasks scored by both, 95% paired bootstrap interval`;
  if (!d.clear) return html`<span class="unclear" title="${title}; the interval contains 0">${text}</span>`;
  return html`<span class="${d.delta > 0 ? "better" : "worse"}" title="${title}">${text}</span>`;
}

function groupRows(groups: readonly GroupDifference[]): Html[] {
  return groups.map(
    (g) =>
      html`<tr data-group="${g.group}"><td>${g.group}</td><td>${metricLabel(g.metric)}${g.lowerIsBetter ? html` <span class="muted small">(lower is better)</span>` : ""}</td><td class="num">${rateCell(g.before)}</td><td class="num">${rateCell(g.after)}</td><td class="num" data-sort="${g.delta ?? ""}">${deltaCell(g, g.lowerIsBetter)}</td></tr>`,
  );
}

export interface ComparisonLabels {
  before: string;
  after: string;
}

export function renderComparisonTable(c: Comparison, labels: ComparisonLabels): Html {
  if (c.paired === 0) return html`<p class="muted">No episode was run by both harnesses on this split.</p>`;
  return html`<table class="compare sortable"><thead><tr><th>group</th><th>metric</th><th class="num">${labels.before}</th><th class="num">${labels.after}</th><th class="num">Δ (95% interval)</th></tr></thead>
<tbody>${groupRows(c.bySuite)}${c.byFamily.length > 0 ? groupRows(c.byFamily) : ""}</tbody></table>
<p class="muted small">${c.paired} episodes run by both. Rates show k/n and a 95% Wilson interval; Δ its paired 95% interval (Bonett–Price, over the episodes both ran), coloured only when it excludes 0. Exact McNemar on the flipped episodes: ${c.mcnemar.gains} fail→pass, ${c.mcnemar.losses} pass→fail, two-sided p = ${pValueText(c.mcnemar.p_value)}.</p>`;
}

export function renderFlips(
  c: Comparison,
  links?: Links & { sideBySide?(f: Flip, c: Comparison): string },
): Html {
  if (c.flips.length === 0) return html`<p class="muted">No episode changed outcome.</p>`;
  const rows = c.flips.map((f) => {
    const both = links?.sideBySide
      ? html`<a href="${links.sideBySide(f, c)}">side by side</a> · <a href="${links.rollout(c.purpose, f.beforeKey)}">before</a> · <a href="${links.rollout(c.purpose, f.afterKey)}">after</a>`
      : "";
    return html`<tr class="flip ${f.direction}" data-suite="${f.suite}" data-direction="${f.direction}"><td><span class="badge ${f.direction === "gain" ? "passed" : "failed"}">${f.direction === "gain" ? "fail → pass" : "pass → fail"}</span></td>
<td class="mono">${f.task_id}</td><td class="num">${f.repeat}</td><td>${f.suite}</td><td>${f.kind}${f.family ? ` · ${f.family}` : ""}</td><td>${both}</td></tr>`;
  });
  return html`<table class="flips sortable filterable"><thead><tr><th>flip</th><th>task</th><th class="num">repeat</th><th>suite</th><th>kind</th><th>trajectories</th></tr></thead><tbody>${rows}</tbody></table>`;
}
