import {
  BUILTIN_METRICS,
  builtinMetric,
  type Comparison,
  describeRejection,
  describeStoppedEarly,
  metricLabel,
  type ObjectiveName,
  objectiveCounts,
  type RunMetricTable,
  type RunStatus,
  storedMetric,
  summaryRate,
  wilson,
} from "../../api";
import { comparisonText, rateText } from "./compare-text";
import { describeUsage } from "./eval-text";
import { metricTableText } from "./metrics-text";
import { fitLines, fmtRate, formatTable, type Paint, paintFor } from "./table";

export interface StatusOptions {
  /** Fit tables to this width (the terminal's); undefined prints them in full. */
  maxWidth?: number;
  paint?: Paint;
  /** Seed against the selected (or incumbent) harness on each split, by suite and family. */
  suites?: readonly Comparison[];
}

/** The round table as `hsearch run` and `hsearch status` print it. */
export function renderStatus(
  status: RunStatus & { metrics?: RunMetricTable },
  options: StatusOptions = {},
): string {
  const paint = options.paint ?? paintFor({ env: {} }, false);
  const lines = [
    `run ${status.run} · ${status.state} · objective ${status.objective} · seed ${status.seed}`,
    ...(status.error && status.state !== "running" && status.state !== "finished"
      ? [`stopped: ${status.error}`]
      : []),
    ...(status.stopped_early ? [describeStoppedEarly(status.stopped_early)] : []),
    ...(status.rejected_parameters ?? []).map((rejection) => describeRejection(rejection, "known")),
    "",
  ];
  const rows: string[][] = [];
  const idOf = new Map(status.rounds.flatMap((r) => r.proposals.map((p) => [p.commit, p.id] as const)));
  for (const round of status.rounds) {
    for (const p of round.proposals) {
      const verdict = p.accepted
        ? round.round === 0
          ? "seed"
          : paint.good("ACCEPTED")
        : (p.verdict ?? (p.state === "evaluated" ? "pending" : p.state));
      rows.push([
        String(round.round),
        p.id,
        p.parent ? (idOf.get(p.parent) ?? p.parent.slice(0, 8)) : "-",
        p.commit.slice(0, 10),
        fmtRate(p.score) + scoredOf(p),
        verdict,
        p.rejected_reason ? `${p.rationale} [${p.rejected_reason}]` : p.rationale,
      ]);
    }
    if (round.exhausted)
      rows.push([
        String(round.round),
        "-",
        "-",
        "-",
        "-",
        "exhausted",
        `the operators found only ${round.proposals.length + round.failures.length} new edit(s) around this parent: their space is used up`,
      ]);
    else if (round.proposals.length === 0 && round.failures.length === 0)
      rows.push([String(round.round), "-", "-", "-", "-", "none", "no new proposal from this incumbent"]);
    for (const f of round.failures)
      rows.push([
        String(round.round),
        `r${round.round}p${f.proposal}`,
        "-",
        "-",
        "-",
        "refused",
        `${f.rationale} [${f.reason}]`,
      ]);
  }
  lines.push(
    formatTable(["round", "proposal", "parent", "commit", "score", "verdict", "rationale"], rows, {
      maxWidth: options.maxWidth,
    }),
    "",
  );
  const counted = status.rounds.flatMap((r) => r.proposals).filter(hasLeftOutOrOverflow);
  if (counted.length > 0) {
    for (const p of counted) lines.push(`${p.id}: ${episodeNote(p)}`);
    lines.push("");
  }
  if (status.incumbent)
    lines.push(`incumbent ${status.incumbent.commit.slice(0, 12)} score ${fmtRate(status.incumbent.score)}`);
  if (status.selected)
    lines.push(
      `selected  ${status.selected.commit.slice(0, 12)} score ${fmtRate(status.selected.score)} (tag 'selected')`,
    );
  const heldRows: string[][] = [];
  for (const role of ["selected", "seed"]) {
    const entry = status.heldout[role] as Record<string, SummaryLike> | undefined;
    if (!entry) continue;
    for (const purpose of ["heldout", "independent"]) {
      const summary = entry[purpose];
      if (!summary) continue;
      const [objective, ...rates] = summaryCells(summary, status.objective);
      heldRows.push([role, purpose, objective + scoredOf(summary), ...rates]);
    }
  }
  // heldout.per_round: each round's incumbent on the held-out split, and on the independent one.
  const diagnostics = (status.heldout.diagnostics ?? {}) as Record<
    string,
    SummaryLike & { independent?: SummaryLike }
  >;
  for (const [key, entry] of Object.entries(diagnostics))
    for (const [split, summary] of [
      ["heldout", entry],
      ["independent", entry.independent],
    ] as const) {
      if (!summary) continue;
      heldRows.push([
        `${key.replace("round_", "round ")} incumbent`,
        `${split} (diagnostic)`,
        ...summaryCells(summary, status.objective),
      ]);
    }
  if (heldRows.length > 0)
    lines.push(
      "",
      formatTable(
        ["harness", "split", "objective", ...HELD_OUT_METRICS.map((name) => metricLabel(name, "short"))],
        heldRows,
        { maxWidth: options.maxWidth, flexColumn: null },
      ),
    );
  const final = status.selected ? "selected" : "incumbent";
  for (const c of options.suites ?? [])
    lines.push(
      "",
      comparisonText(c, { before: "seed", after: final }, paint, { maxWidth: options.maxWidth }),
    );
  if (status.metrics) lines.push("", metricTableText(status.metrics, { maxWidth: options.maxWidth }));
  const u = status.usage;
  const cached = u.cached_rollouts > 0 ? ` (${u.cached_rollouts} answered from the request cache, free)` : "";
  lines.push("", `usage: ${u.rollouts} rollouts${cached}; ${describeUsage(u)}`);
  for (const [role, part] of Object.entries(u.by_role))
    if (part.calls + part.cached_calls > 0) lines.push(`  ${role}: ${describeUsage(part)}`);
  // Tables fit already; a long line of prose (a failure, a note, usage) wraps.
  return fitLines(lines.join("\n"), options.maxWidth);
}

/** The held-out table's metrics after the objective: the catalogue's entries marked for it, in its order. */
const HELD_OUT_METRICS = BUILTIN_METRICS.filter((metric) => metric.heldOut).map((metric) => metric.name);

/**
 * A held-out summary's rate cells (the objective, then HELD_OUT_METRICS), each with k/n and its 95% Wilson interval
 * as the per-suite tables print them; the objective's k/n are the episodes it counts (src/scoring/objective.ts).
 */
function summaryCells(summary: SummaryLike, objective: ObjectiveName): string[] {
  const counts = objectiveCounts(summary, objective);
  const objectiveCell =
    typeof summary.objective === "number" && counts.n > 0
      ? rateText({ ...wilson(counts.k, counts.n), rate: summary.objective })
      : fmtRate(summary.objective);
  return [
    objectiveCell,
    ...HELD_OUT_METRICS.map((name) => {
      const metric = builtinMetric(name);
      const block = metric.kinds[0] === "blocked" ? summary.blocked : summary.feasible;
      const rate = storedMetric(block, name);
      const withCount = summaryRate(rate, block?.n);
      return withCount ? rateText(withCount) : fmtRate(rate);
    }),
  ];
}

/** " (38/40 scored)" when infrastructure errors left episodes out of a score; "" otherwise. */
function scoredOf(counts: { n_scored?: number | null; n_total?: number | null }): string {
  const { n_scored, n_total } = counts;
  return typeof n_scored === "number" && typeof n_total === "number" && n_scored < n_total
    ? ` (${n_scored}/${n_total} scored)`
    : "";
}

type EpisodeCounts = RunStatus["rounds"][number]["proposals"][number];

function hasLeftOutOrOverflow(p: EpisodeCounts): boolean {
  return p.context_overflow > 0 || Object.keys(p.infra_errors).length > 0;
}

/** "scored 38 of 40 episodes; infrastructure errors (not scored): 2 rate_limit; 3 ended by the context window…" */
function episodeNote(p: EpisodeCounts): string {
  const parts = [`scored ${p.n_scored ?? "?"} of ${p.n_total ?? "?"} episodes`];
  const infra = Object.entries(p.infra_errors).map(([errorClass, count]) => `${count} ${errorClass}`);
  if (infra.length > 0) parts.push(`infrastructure errors (not scored, retried later): ${infra.join(", ")}`);
  if (p.context_overflow > 0)
    parts.push(`${p.context_overflow} ended by the context window (scored as failures)`);
  return parts.join("; ");
}

interface SummaryLike {
  n_scored?: number;
  n_total?: number;
  objective?: number | null;
  blocked?: { n?: number; strict_sa?: number; absrec?: Record<string, number> } | null;
  feasible?: { n?: number; solve?: number; false_abstention?: number } | null;
}
