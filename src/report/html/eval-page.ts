/**
 * An evaluation directory as a page (`hsearch report DIR`, and the viewer's home page of one): what was evaluated
 * (harness, commit, models, tasks), the summary tables `hsearch eval` prints — per family, feasible, per suite, each
 * rate with k/n and a 95% Wilson interval — the infrastructure errors with their messages, and every episode with its
 * outcome, filterable by kind, family and outcome. Pure: stored data in, a document out.
 */
import type { Family, Kind } from "../../domain";
import type { Trajectory } from "../../harness";
import { type BuiltinMetric, builtinMetricsOf, bySuiteMetrics, storedMetric } from "../../scoring";
import type { EventRecord, RolloutRecord, RunStatus } from "../../store/types";
import { type Rate, summaryRate } from "../model/compare";
import type { StoredEvaluation } from "../model/eval-data";
import { evalResumeCommand, fmtDuration, fmtRate, fmtTime, shortSha, viewCommand } from "./format";
import { type Html, type HtmlValue, html } from "./html";
import { type Links, page } from "./page";
import { rateCell } from "./sections/comparison";
import { renderConfig, renderEvents, renderUsage } from "./sections/run-info";
import { scoreLine } from "./sections/score-line";
import { renderTimeline } from "./sections/timeline";

export const OUTCOMES = ["passed", "failed", "infra_error"] as const;
export type EpisodeOutcome = (typeof OUTCOMES)[number];

/** Passed: strict SA on a blocked task, solve on a feasible one; an infrastructure error is neither. */
export function episodeOutcome(rollout: RolloutRecord): EpisodeOutcome {
  const s = rollout.scores;
  if (s.kind === "infra_error") return "infra_error";
  return (rollout.kind === "blocked" ? s.strict_sa : s.solve) === true ? "passed" : "failed";
}

export interface EpisodeFilter {
  kind?: Kind;
  family?: Family;
  outcome?: EpisodeOutcome;
}

export function filterEpisodes(rollouts: readonly RolloutRecord[], filter: EpisodeFilter): RolloutRecord[] {
  return rollouts.filter(
    (r) =>
      (filter.kind === undefined || r.kind === filter.kind) &&
      (filter.family === undefined || r.family === filter.family) &&
      (filter.outcome === undefined || episodeOutcome(r) === filter.outcome),
  );
}

/** Where the page links: episodes and the harness's files (viewer), and filtered views of the page itself. */
export interface EvaluationLinks {
  rollout: Links["rollout"];
  harness: (commit: string) => string;
  /** The page with this filter; absent in a static report (its table filters as you type in the viewer only). */
  filtered?: (filter: EpisodeFilter) => string;
}

export interface EvaluationPageOptions {
  links?: EvaluationLinks;
  filter?: EpisodeFilter;
  nav?: Html;
  live?: boolean;
  events?: readonly EventRecord[];
  /** The usage table's data: every role and model over the evaluation's sessions. */
  usage: RunStatus["usage"];
  /** Failed and errored episodes shown inline with their verifier output (the static report, which has no links). */
  failures?: ReadonlyArray<{ rollout: RolloutRecord; trajectory: Trajectory }>;
  generatedAt?: string;
}

const OUTCOME_LABEL: Record<EpisodeOutcome, string> = {
  passed: "passed",
  failed: "failed",
  infra_error: "infra error",
};

export function renderEvaluationPage(stored: StoredEvaluation, options: EvaluationPageOptions): string {
  return page(
    { title: `hsearch eval · ${stored.run.id}`, live: options.live, nav: options.nav },
    renderEvaluationBody(stored, options),
  );
}

export function renderEvaluationBody(stored: StoredEvaluation, options: EvaluationPageOptions): Html {
  const { run, config, report } = stored;
  const links = options.links;
  const duration = fmtDuration(run.created_at, run.ended_at);
  const resume = evalResumeCommand(stored.dir);
  const banner =
    run.state === "finished"
      ? ""
      : run.state === "running"
        ? html`<div class="banner running"><strong>This evaluation is running</strong> (or was stopped without finishing: <code>${resume}</code> continues it). ${stored.stored} of ${stored.planned} episodes are stored; the tables are over those.</div>`
        : html`<div class="banner failed"><strong>This evaluation ${run.state === "failed" ? "failed" : "stopped"}.</strong> ${run.error ?? ""} <code>${resume}</code> runs what is missing (infrastructure errors included). ${stored.stored} of ${stored.planned} episodes are stored.</div>`;
  const harnessLink = links
    ? html`<a href="${links.harness(stored.commit)}"><code>${shortSha(stored.commit)}</code></a>`
    : html`<code>${shortSha(stored.commit)}</code>`;
  const selection = Object.entries(config.tasks.selection)
    .map(([key, value]) => `${key} ${value}`)
    .join(", ");
  const { blocked, feasible } = report.summary;
  const suites = Object.entries(report.by_suite);
  return html`<header><h1>Evaluation ${run.id}</h1>
<p class="subtitle"><span class="badge ${run.state}">${run.state}</span> · harness <code>${config.harness.label}</code> (commit ${harnessLink}, content hash <code>${config.harness.hash.slice(0, 12)}</code>) · model <code>${config.models.agent}</code> · judge ${config.models.judge} · seed ${config.seed} · repeats ${config.repeats} · started ${fmtTime(run.created_at)}${duration ? ` · took ${duration}` : ""}</p>
${banner}
<p>${config.tasks.ids.length} tasks (${selection || "all"}); ${report.summary.n_scored} of ${stored.stored} stored episodes scored${stored.stored < stored.planned ? `, ${stored.planned - stored.stored} not run yet` : ""}.</p></header>
<section id="blocked"><h2>Blocked tasks</h2>${blocked ? renderBlocked(blocked) : html`<p class="muted">No blocked task in the selection.</p>`}</section>
<section id="feasible"><h2>Feasible tasks</h2>${
    feasible
      ? html`<table class="metrics"><thead><tr><th>feasible</th><th class="num">n</th>${FEASIBLE_COLUMNS.map((metric) => html`<th class="num">${metric.label}</th>`)}</tr></thead><tbody><tr><td>all</td><td class="num">${feasible.n}</td>${FEASIBLE_COLUMNS.map((metric) => html`<td class="num">${metricCell(metric, feasible, feasible.n)}</td>`)}</tr></tbody></table>`
      : html`<p class="muted">No feasible task in the selection.</p>`
  }</section>
${
  suites.length > 1
    ? html`<section id="suites"><h2>By suite</h2><table class="metrics"><thead><tr><th>suite</th>${SUITE_COLUMNS.map((metric) => html`<th class="num">${metric.label}</th>`)}</tr></thead><tbody>${suites.map(([suite, r]) => html`<tr><td>${suite}</td>${SUITE_COLUMNS.map((metric) => html`<td class="num">${cellOf(r[metric.name])}</td>`)}</tr>`)}</tbody></table></section>`
    : ""
}
${renderInfraErrors(stored, links)}
<section id="episodes"><h2>Episodes</h2>${renderEpisodes(stored.rollouts, options)}</section>
${options.failures && options.failures.length > 0 ? html`<section id="failures"><h2>Failed episodes</h2>${renderFailures(options.failures)}</section>` : ""}
<section id="usage"><h2>Usage</h2>${renderUsage(options.usage)}</section>
<section id="config"><h2>Configuration</h2>${renderConfig(run.config)}</section>
${options.events ? html`<section id="activity"><h2>Activity</h2>${renderEvents(options.events)}</section>` : ""}
<footer>${options.generatedAt ? `Generated by hsearch on ${fmtTime(options.generatedAt)} from ${run.id}/run.db.` : `From ${run.id}/run.db.`} Every episode's trajectory is kept in <code>${stored.dir}/trajectories</code>; <code>${viewCommand(stored.dir)}</code> opens each one.</footer>`;
}

/** A stored metric: a rate as "0.656 21/32 [0.48, 0.80]" (a summary's rate is a count over its n), a mean as is. */
function metricCell(metric: BuiltinMetric, rates: Readonly<Record<string, unknown>>, n: number): Html {
  const value = storedMetric(rates, metric.name);
  const counted = metric.reducer === "rate" ? summaryRate(value, n) : null;
  return counted ? rateCell(counted) : html`${fmtRate(value)}`;
}

/** The blocked table's columns: every built-in metric of blocked episodes, from the catalogue. */
const BLOCKED_COLUMNS = builtinMetricsOf("blocked");
const FEASIBLE_COLUMNS = builtinMetricsOf("feasible");
const SUITE_COLUMNS = bySuiteMetrics();

/** A per-suite rate; every suite row holds each per-suite metric, so a gap is only an older report's. */
function cellOf(rate: Rate | undefined): Html {
  return rate ? rateCell(rate) : html`–`;
}

type BlockedBlock = NonNullable<StoredEvaluation["report"]["summary"]["blocked"]>;

function renderBlocked(blocked: BlockedBlock): Html {
  const row = (label: string, r: Omit<BlockedBlock, "by_family">) =>
    html`<tr><td>${label}</td><td class="num">${r.n}</td>${BLOCKED_COLUMNS.map((metric) => html`<td class="num">${metricCell(metric, r, r.n)}</td>`)}<td class="num">${r.post_hoc}</td></tr>`;
  const families = (Object.entries(blocked.by_family) as Array<[string, BlockedBlock | null]>).flatMap(
    ([family, rates]) => (rates ? [row(family, rates)] : []),
  );
  return html`<p class="muted small">Rates over blocked episodes with k/n and a 95% Wilson interval; SPL is a mean over the episodes' timing; the last column counts post-hoc abstentions.</p>
<div class="table-scroll"><table class="metrics"><thead><tr><th>blocked</th><th class="num">n</th>${BLOCKED_COLUMNS.map((metric) => html`<th class="num">${metric.short ?? metric.label}</th>`)}<th class="num">post-hoc count</th></tr></thead>
<tbody>${families}${row("all", blocked)}</tbody></table></div>`;
}

function renderInfraErrors(stored: StoredEvaluation, links?: EvaluationLinks): HtmlValue {
  const errors = stored.rollouts.filter((r) => r.scores.kind === "infra_error");
  if (errors.length === 0) return "";
  const classes = Object.entries(stored.report.summary.infra_errors)
    .map(([errorClass, count]) => `${count} ${errorClass}`)
    .join(", ");
  return html`<section id="infra-errors"><h2>Infrastructure errors</h2><p class="muted small">Not scored and left out of every rate (${classes}): the provider's or the task's fault, never the agent's. A task whose setup failed shows the setup's output.</p>
${errors.map(
  (r) =>
    html`<details class="infra-error"><summary><code>${r.task_id}</code> (repeat ${r.repeat})${links ? html` · <a href="${links.rollout(r.purpose, r.key)}">episode</a>` : ""}</summary><pre class="file">${r.infra_error ?? ""}</pre></details>`,
)}</section>`;
}

function renderEpisodes(rollouts: readonly RolloutRecord[], options: EvaluationPageOptions): Html {
  const filter = options.filter ?? {};
  const shown = filterEpisodes(rollouts, filter);
  const links = options.links;
  const filters = links?.filtered ? renderFilterLinks(rollouts, filter, links.filtered) : "";
  const rows = shown.map((r) => {
    const outcome = episodeOutcome(r);
    const task = links
      ? html`<a href="${links.rollout(r.purpose, r.key)}">${r.task_id}</a>`
      : html`${r.task_id}`;
    return html`<tr data-outcome="${outcome}" data-filter="${outcome.replace("_", " ")}"><td class="mono">${task}</td><td>${r.suite}</td><td>${r.split}</td><td>${r.kind}</td><td>${r.family ?? ""}</td><td class="num">${r.repeat}</td><td><span class="badge ${outcome === "passed" ? "passed" : outcome === "failed" ? "failed" : "invalid"}">${OUTCOME_LABEL[outcome]}</span></td><td>${r.end_reason.replaceAll("_", " ")}</td><td class="num">${r.steps}</td><td class="num">${r.reward ?? "–"}</td><td class="small">${scoreLine(r)}</td></tr>`;
  });
  const count =
    shown.length === rollouts.length
      ? `${rollouts.length} episodes`
      : `${shown.length} of ${rollouts.length} episodes`;
  return html`${filters}<p class="muted small">${count}${links ? "; open one for its trajectory and the verifier's output" : ""}.</p>
<table class="sortable filterable episodes" id="episodes-table"><thead><tr><th>task</th><th>suite</th><th>split</th><th>kind</th><th>family</th><th class="num">repeat</th><th>outcome</th><th>end</th><th class="num">steps</th><th class="num">reward</th><th>gates</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** "kind: all · feasible · blocked", "family: …", "outcome: …", each keeping the other two. */
function renderFilterLinks(
  rollouts: readonly RolloutRecord[],
  filter: EpisodeFilter,
  link: (filter: EpisodeFilter) => string,
): Html {
  const group = <K extends keyof EpisodeFilter>(
    key: K,
    label: string,
    values: ReadonlyArray<NonNullable<EpisodeFilter[K]>>,
  ) => {
    const option = (value: EpisodeFilter[K] | undefined, text: string) => {
      const next = { ...filter, [key]: value };
      const n = filterEpisodes(rollouts, next).length;
      return filter[key] === value
        ? html`<strong class="filter-on">${text} (${n})</strong>`
        : html`<a class="filter" data-filter="${key}=${value ?? "all"}" href="${link(next)}">${text} (${n})</a>`;
    };
    return html`<span class="filter-group">${label}: ${option(undefined, "all")}${values.map((value) => html` · ${option(value, String(value).replace("_", " "))}`)}</span>`;
  };
  const present = <T>(values: readonly T[], of: (r: RolloutRecord) => T | null) =>
    values.filter((value) => rollouts.some((r) => of(r) === value));
  return html`<p class="filters small">${group(
    "kind",
    "kind",
    present(["feasible", "blocked"] as const, (r) => r.kind),
  )}<br>${group(
    "family",
    "family",
    present(["infeasible", "ambiguous", "trap"] as const, (r) => r.family),
  )}<br>${group("outcome", "outcome", present(OUTCOMES, episodeOutcome))}</p>`;
}

function renderFailures(failures: NonNullable<EvaluationPageOptions["failures"]>): Html {
  return html`<p class="muted small">Each failed episode with what the verifier printed (or the infrastructure error), then its timeline.</p>
${failures.map(
  ({ rollout, trajectory }) =>
    html`<details class="failure"><summary><code>${rollout.task_id}</code> (repeat ${rollout.repeat}) · ${OUTCOME_LABEL[episodeOutcome(rollout)]} · ${scoreLine(rollout)}</summary>${renderVerifierOutput(trajectory)}${renderTimeline(trajectory)}</details>`,
)}`;
}

/**
 * What the task's verifier printed (a failing test's assertion), or the infrastructure error that stopped the
 * episode (a task setup's output): the first thing to read when an episode failed.
 */
export function renderVerifierOutput(trajectory: Trajectory): Html {
  const parts: Html[] = [];
  if (trajectory.end.reason === "infra_error")
    parts.push(
      html`<h3>Infrastructure error${trajectory.end.error_class ? ` (${trajectory.end.error_class})` : ""}</h3><p class="muted small">Not scored: the provider's or the task's fault, not the agent's.</p><pre class="file infra-error-output">${trajectory.end.error ?? "no message"}</pre>`,
    );
  const v = trajectory.verifier;
  if (v) {
    const status = [
      v.timed_out ? "timed out" : `exit code ${v.exit_code ?? "–"}`,
      `${(v.duration_ms / 1000).toFixed(1)} s`,
      ...(v.problem ? [v.problem] : []),
    ].join(" · ");
    parts.push(
      html`<h3>Verifier output</h3><p class="muted small">The task's tests as they ran after the episode (${status}); never shown to the agent or a proposer.</p><pre class="file verifier-output">${v.output || "(no output)"}</pre>`,
    );
  }
  return html`${parts}`;
}
