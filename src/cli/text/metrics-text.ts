/** A run's own metrics (src/report/model/run-metrics.ts) as terminal text: one row per metric and split, seed → final. */
import type { RunMetricCell, RunMetricTable } from "../../api";
import { rateText } from "./compare-text";
import { fitLines, fmtRate, formatTable } from "./table";

const SPLIT_LABEL: Record<RunMetricCell["split"], string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
};

function cellText(cell: RunMetricCell | undefined): string {
  if (!cell) return "-";
  const { result } = cell;
  if (result.reducer === "rate" && result.k !== null)
    return rateText({ k: result.k, n: result.n, rate: result.value, low: result.low, high: result.high });
  return result.value === null ? "-" : `${fmtRate(result.value)} n ${result.n}`;
}

export function metricTableText(table: RunMetricTable, options: { maxWidth?: number } = {}): string {
  const roles = [...new Set(table.rows.flatMap((row) => row.cells.map((cell) => cell.role)))];
  const rows: string[][] = [];
  for (const row of table.rows) {
    const label = row.higherIsBetter ? row.label : `${row.label} (lower is better)`;
    if (row.problem !== null) {
      rows.push([label, "-", ...roles.map(() => "-")]);
      continue;
    }
    const splits = [...new Set(row.cells.map((cell) => cell.split))];
    for (const split of splits)
      rows.push([
        label,
        SPLIT_LABEL[split],
        ...roles.map((role) => cellText(row.cells.find((c) => c.split === split && c.role === role))),
      ]);
    if (splits.length === 0) rows.push([label, "-", ...roles.map(() => "-")]);
  }
  const lines = [
    "metrics from the config's metric modules (rates: k/n [95% Wilson]; means: value and n):",
    formatTable(["metric", "split", ...roles], rows, { maxWidth: options.maxWidth, flexColumn: 0 }),
  ];
  for (const row of table.rows)
    if (row.problem !== null) lines.push(fitLines(`${row.metric}: ${row.problem}`, options.maxWidth));
  for (const module of table.modules) {
    if (module.problem !== null)
      lines.push(
        fitLines(
          `metric module ${module.module}: ${module.problem}; its metrics are not shown`,
          options.maxWidth,
        ),
      );
    else if (module.changed)
      lines.push(
        fitLines(
          `metric module ${module.module} changed since the run started (content hash differs): shown with its current code`,
          options.maxWidth,
        ),
      );
  }
  return lines.join("\n");
}
