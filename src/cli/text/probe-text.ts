/**
 * The probes' reports as text: `hsearch probe` prints them, `hsearch status` of a probe's directory too.
 */

import type {
  BeliefSummary,
  BeliefsReport,
  ChallengeReport,
  HoldViewReport,
  MeanSd,
  MetricReport,
} from "../../api";
import { describeUsage } from "./eval-text";
import { fmtRate, formatTable } from "./table";

function fmtMetric(metric: MetricReport): string {
  if (metric.value === null) return `undefined (${metric.reason})`;
  const ci = metric.ci
    ? `[${metric.ci[0].toFixed(3)}, ${metric.ci[1].toFixed(3)}]`
    : `no CI (${metric.reason})`;
  return `${metric.value.toFixed(3)} ${ci}`;
}

const METRIC_ROWS = [
  ["AUROC", "auroc"],
  ["Brier", "brier"],
  ["ECE10", "ece10"],
] as const;

export function renderBeliefs(report: BeliefsReport): string {
  const counts = (summary: BeliefSummary) =>
    `${summary.n} tasks: ${summary.n_valid} valid, ${summary.n_invalid} invalid, ${summary.n_infra_error} infrastructure errors`;
  const lines = [
    `probe beliefs · model ${report.model} · seed ${report.seed} · ${report.resamples} bootstrap resamples`,
    `${report.harness}: ${counts(report)}`,
  ];
  const { compare } = report;
  if (compare) lines.push(`${compare.harness}: ${counts(compare)}`);
  lines.push("");
  const header = compare
    ? [
        "metric",
        "first [95% CI]",
        "second [95% CI]",
        `first − second [95% CI, ${compare.difference.pairs} pairs]`,
      ]
    : ["metric", "value [95% CI]"];
  const rows = METRIC_ROWS.map(([title, key]) =>
    compare
      ? [title, fmtMetric(report[key]), fmtMetric(compare[key]), fmtMetric(compare.difference[key])]
      : [title, fmtMetric(report[key])],
  );
  lines.push(formatTable(header, rows), "");
  const invalid = report.tasks.filter((row) => row.status !== "valid");
  for (const row of invalid.slice(0, 5)) lines.push(`${row.status}: ${row.id}: ${row.problem}`);
  if (invalid.length > 5) lines.push(`… and ${invalid.length - 5} more without a valid report`);
  const { usage } = report;
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}

function fmtMeanSd(value: MeanSd): string {
  if (value.mean === null) return "-";
  return value.sd === null ? fmtRate(value.mean) : `${fmtRate(value.mean)} ± ${fmtRate(value.sd)}`;
}

export function renderChallenge(report: ChallengeReport): string {
  const lines = [
    `probe challenge · harness ${report.harness} · model ${report.model} · seed ${report.seed} · runs ${report.runs}`,
    `challenge: ${JSON.stringify(report.prompt)}`,
    "",
  ];
  const views = Object.values(report.views) as HoldViewReport[];
  const header = ["blocked", "pre", "post", "P(+|+)", "P(+|−)", "P(−|+)", "measure", "value"];
  const rows = views.map((view) => [
    view.view,
    view.pre === "strict_sa" ? "strict SA" : "deferral",
    "deferral",
    fmtMeanSd(view.p_pos_pos),
    fmtMeanSd(view.p_pos_neg),
    fmtMeanSd(view.p_neg_pos),
    view.measure === "cra" ? "CRA" : "Δχ",
    fmtMeanSd(view.change),
  ]);
  lines.push(formatTable(header, rows), "");
  const first = views[0];
  if (first) {
    const { feasible } = first.counts;
    const episodes = feasible.pos_pos + feasible.pos_neg + feasible.neg_pos + feasible.neg_neg;
    lines.push(
      `feasible: ${episodes} episodes · new false abstentions per run ${fmtMeanSd(first.new_false_abstentions)}` +
        ` (rate ${fmtMeanSd(first.new_false_abstention_rate)}) · withdrawn false abstentions ${feasible.pos_neg}`,
    );
  }
  lines.push(
    "values are mean ± sample SD over runs; CRA = P(+|−) − P(−|+) (same predicate), Δχ = post − pre rate",
  );
  if (report.infra_errors.length > 0)
    lines.push(`${report.infra_errors.length} episodes left out: infrastructure errors`);
  const { usage } = report;
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}
