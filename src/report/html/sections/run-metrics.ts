/** A run's own metrics (its config's metric modules) as HTML: per metric and split, seed and final, Δ for rates. */
import { type Rate, unpairedDifference } from "../../model/compare";
import type { RunMetricCell, RunMetricTable } from "../../model/run-metrics";
import { fmtRate } from "../format";
import { type Html, html } from "../html";
import { deltaCell, rateCell } from "./comparison";

const SPLIT_LABEL: Record<RunMetricCell["split"], string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
};

function rateOf(cell: RunMetricCell): Rate | null {
  const { result } = cell;
  return result.reducer === "rate" && result.k !== null
    ? { k: result.k, n: result.n, rate: result.value, low: result.low, high: result.high }
    : null;
}

function valueCell(cell: RunMetricCell | undefined): Html {
  if (!cell) return html`<span class="muted">–</span>`;
  const rate = rateOf(cell);
  if (rate) return rateCell(rate);
  return html`${fmtRate(cell.result.value)} <span class="kn">n ${String(cell.result.n)}</span>`;
}

export function renderRunMetrics(table: RunMetricTable): Html {
  const roles = [...new Set(table.rows.flatMap((row) => row.cells.map((cell) => cell.role)))];
  const rows = table.rows.flatMap((row) => {
    const name = html`<td title="${row.description ?? ""}">${row.label}${row.higherIsBetter ? "" : html` <span class="muted small">(lower is better)</span>`}</td>`;
    if (row.problem !== null)
      return [
        html`<tr data-metric="${row.metric}">${name}<td colspan="${String(roles.length + 2)}" class="worse">${row.problem}</td></tr>`,
      ];
    const splits = [...new Set(row.cells.map((cell) => cell.split))];
    return splits.map((split) => {
      const cells = roles.map((role) => row.cells.find((c) => c.split === split && c.role === role));
      const [before, after] = cells.map((c) => (c ? rateOf(c) : null));
      const delta =
        roles.length === 2 && before && after
          ? deltaCell(unpairedDifference(before, after), !row.higherIsBetter)
          : html`<span class="muted">–</span>`;
      return html`<tr data-metric="${row.metric}">${name}<td>${SPLIT_LABEL[split]}</td>${cells.map((c) => html`<td class="num">${valueCell(c)}</td>`)}<td class="num">${delta}</td></tr>`;
    });
  });
  const notes = table.modules.flatMap((module) =>
    module.problem !== null
      ? [html`<li class="worse">${module.module}: ${module.problem}; its metrics are not shown.</li>`]
      : module.changed
        ? [
            html`<li>${module.module} changed since the run started (its content hash differs): shown with its current code.</li>`,
          ]
        : [html`<li class="muted">${module.module}: ${module.metrics.join(", ")}</li>`],
  );
  return html`<p class="muted small">Metrics from the modules the search config names under <code>metrics</code>, computed from the stored episodes (scores and trajectories). Rates show k/n and a 95% Wilson interval, Δ a 95% Newcombe interval; means show their n.</p>
<table class="metrics run-metrics"><thead><tr><th>metric</th><th>split</th>${roles.map((role) => html`<th class="num">${role}</th>`)}<th class="num">Δ (95% interval)</th></tr></thead><tbody>${rows}</tbody></table>
<ul class="small">${notes}</ul>`;
}
