import {
  type BlockedRates,
  builtinMetricsOf,
  bySuiteMetrics,
  cutMiddle,
  type EvalReport,
  FAMILIES,
  formatUsd,
  metricLabel,
  type Rate,
  type RoleUsage,
  storedMetric,
} from "../../api";
import { rateText } from "./compare-text";
import { fmtRate, formatTable } from "./table";

/** The human-readable eval report: one row per family and overall, then feasible rates and usage. */
export function renderEvalReport(report: EvalReport): string {
  const { blocked, feasible, usage, infra_errors, n_total, n_scored, context_overflow } = report.summary;
  const lines = [
    `harness ${report.harness} · model ${report.model} · seed ${report.seed} · repeats ${report.repeats}`,
    "",
  ];
  if (blocked) {
    const header = ["blocked", "n", ...EVAL_BLOCKED.map((metric) => metric.short ?? metric.label)];
    const rows = [
      ...FAMILIES.flatMap((family) => {
        const rates = blocked.by_family[family];
        return rates ? [[family, ...rateCells(rates)]] : [];
      }),
      ["all", ...rateCells(blocked)],
    ];
    lines.push(formatTable(header, rows), "");
  } else lines.push("blocked: no task in the selection", "");
  if (feasible)
    lines.push(
      formatTable(
        ["feasible", "n", ...EVAL_FEASIBLE.map((metric) => metric.short ?? metric.label)],
        [
          [
            "all",
            String(feasible.n),
            ...EVAL_FEASIBLE.map((metric) => fmtRate(storedMetric(feasible, metric.name))),
          ],
        ],
      ),
      "",
    );
  else lines.push("feasible: no task in the selection", "");
  const suites = Object.entries(report.by_suite);
  if (suites.length > 1)
    lines.push(
      formatTable(
        ["suite", ...BY_SUITE.map((metric) => metricLabel(metric.name, "short"))],
        suites.map(([suite, r]) => [suite, ...BY_SUITE.map((metric) => suiteCell(r[metric.name]))]),
        { flexColumn: 0 },
      ),
      "",
    );
  const infra = Object.entries(infra_errors)
    .map(([errorClass, count]) => `${count} ${errorClass}`)
    .join(", ");
  lines.push(
    `scored ${n_scored} of ${n_total} episodes` +
      (n_scored < n_total ? ` · infrastructure errors (not scored): ${infra}` : "") +
      (context_overflow > 0 ? ` · ${context_overflow} ended by the context window (scored as failures)` : ""),
  );
  for (const { task_id, repeat, error } of report.infra_error_details)
    lines.push(`infrastructure error: ${task_id} (repeat ${repeat}): ${cutMiddle(error, 600)}`);
  for (const [role, part] of Object.entries(usage.by_role)) {
    if (part.calls + part.cached_calls === 0) continue;
    lines.push(`usage ${role}: ${describeUsage(part)}`);
  }
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}

/** "12 calls (3 cached), 1000 input + 200 output tokens (800 from the prompt cache), $0.0123". */
export function describeUsage(usage: RoleUsage): string {
  const cached = usage.cached_calls > 0 ? ` (+${usage.cached_calls} from the request cache, not billed)` : "";
  const promptCache =
    usage.cache_read_tokens + usage.cache_write_tokens > 0
      ? ` (prompt cache: ${usage.cache_read_tokens} read, ${usage.cache_write_tokens} written)`
      : "";
  return `${usage.calls} model calls${cached}, ${usage.input_tokens} input + ${usage.output_tokens} output tokens${promptCache}, ${formatUsd(usage.usd)}`;
}

/** The eval tables' columns: every built-in metric of one kind of episode, and those marked per suite (src/scoring/metrics). */
const EVAL_BLOCKED = builtinMetricsOf("blocked");
const EVAL_FEASIBLE = builtinMetricsOf("feasible");
const BY_SUITE = bySuiteMetrics();

/** A per-suite rate; every suite row holds each per-suite metric, so a gap is only an older report's. */
function suiteCell(rate: Rate | undefined): string {
  return rate ? rateText(rate) : "-";
}

function rateCells(rates: BlockedRates): string[] {
  return [String(rates.n), ...EVAL_BLOCKED.map((metric) => fmtRate(storedMetric(rates, metric.name)))];
}
