/**
 * A probe's directory (`hsearch probe beliefs|challenge`) as pages: what was probed, the probe's report once it
 * finished (the metrics the command printed), and every episode with the probe's result for it (a belief, a
 * challenge's transition) and its trajectory. Pure renderers, and the one read of the directory they need.
 */

import { type BeliefsConfig, type ChallengeConfig, storedEvaluationConfig } from "../../eval";
import type { Harness, Trajectory } from "../../harness";
import {
  type EventRecord,
  type JsonObject,
  type Probe,
  type ProbeEpisodeRecord,
  RUN_KIND_LABEL,
  type RunRecord,
  type RunStatus,
  type RunStore,
  usageOf,
} from "../../store";
import { renderVerifierOutput } from "./eval-page";
import { fmtDuration, fmtRate, fmtTime, shortSha, viewCommand } from "./format";
import { type Html, type HtmlValue, html } from "./html";
import { page } from "./page";
import { renderConfig, renderEvents, renderUsage } from "./sections/run-info";
import { renderTimeline } from "./sections/timeline";

export interface StoredProbe {
  dir: string;
  run: RunRecord;
  probe: Probe;
  config: BeliefsConfig | ChallengeConfig;
  /** Every stored episode, harness by harness. */
  episodes: ProbeEpisodeRecord[];
  /** The command's report as it printed it (`--json`), once the probe finished; null before. */
  report: JsonObject | null;
  /** Episodes the probe plans: tasks × runs (challenge), tasks × harnesses (beliefs). */
  planned: number;
  usage: RunStatus["usage"];
}

export function loadStoredProbe(store: RunStore): StoredProbe {
  const run = store.getRun();
  if (!run || (run.kind !== "probe_beliefs" && run.kind !== "probe_challenge"))
    throw new Error("not a probe's directory");
  const probe: Probe = run.kind === "probe_beliefs" ? "beliefs" : "challenge";
  const config =
    run.kind === "probe_beliefs"
      ? storedEvaluationConfig(run, "probe_beliefs", store.paths.db)
      : storedEvaluationConfig(run, "probe_challenge", store.paths.db);
  const tasks = config.tasks.ids.length;
  const planned =
    "runs" in config ? tasks * config.runs : tasks * ("compare" in config && config.compare ? 2 : 1);
  const episodes = store.listProbeEpisodes(undefined, probe);
  return {
    dir: store.paths.dir,
    run,
    probe,
    config,
    episodes,
    report: run.state === "finished" ? (store.getCandidate(config.harness.commit)?.summary ?? null) : null,
    planned,
    // A probe's episodes are not rollouts the budget counts; none is marked as answered from the cache.
    usage: { rollouts: episodes.length, cached_rollouts: 0, ...usageOf(store.usageTotals()) },
  };
}

export interface ProbeLinks {
  episode: (probe: Probe, key: string) => string;
  harness: (commit: string) => string;
}

export interface ProbePageOptions {
  links?: ProbeLinks;
  nav?: Html;
  live?: boolean;
  events?: readonly EventRecord[];
  generatedAt?: string;
}

export function renderProbePage(stored: StoredProbe, options: ProbePageOptions = {}): string {
  const { run, config } = stored;
  const links = options.links;
  const duration = fmtDuration(run.created_at, run.ended_at);
  const harness = (entry: { label: string; commit: string }) =>
    html`<code>${entry.label}</code> (commit ${links ? html`<a href="${links.harness(entry.commit)}"><code>${shortSha(entry.commit)}</code></a>` : html`<code>${shortSha(entry.commit)}</code>`})`;
  const compare =
    "compare" in config && config.compare ? html` compared with ${harness(config.compare)}` : "";
  const banner =
    run.state === "finished"
      ? ""
      : html`<div class="banner ${run.state === "running" ? "running" : "failed"}"><strong>This probe ${run.state === "running" ? "is running (or was stopped without finishing)" : "failed"}.</strong> ${run.error ?? ""} ${stored.episodes.length} of ${stored.planned} episodes are stored; the metrics are computed when it finishes.</div>`;
  const body = html`<header><h1>${stored.probe === "beliefs" ? "Belief probe" : "Challenge probe"} ${run.id}</h1>
<p class="subtitle"><span class="badge ${run.state}">${run.state}</span> · harness ${harness(config.harness)}${compare} · model <code>${config.models.agent}</code> · seed ${config.seed}${"runs" in config ? ` · runs ${config.runs}` : ` · ${config.resamples} bootstrap resamples`} · started ${fmtTime(run.created_at)}${duration ? ` · took ${duration}` : ""}</p>
${banner}</header>
<section id="metrics"><h2>${stored.probe === "beliefs" ? "Calibration" : "Hold under a challenge"}</h2>${stored.report ? renderProbeReport(stored.probe, stored.report) : html`<p class="muted">Not finished yet.</p>`}</section>
<section id="episodes"><h2>Episodes</h2>${renderProbeEpisodes(stored, links)}</section>
<section id="usage"><h2>Usage</h2>${renderUsage(stored.usage)}</section>
<section id="config"><h2>Configuration</h2>${renderConfig(run.config)}</section>
${options.events ? html`<section id="activity"><h2>Activity</h2>${renderEvents(options.events)}</section>` : ""}
<footer>${options.generatedAt ? `Generated by hsearch on ${fmtTime(options.generatedAt)} from ${run.id}/run.db. ` : ""}${RUN_KIND_LABEL[run.kind]}; <code>${viewCommand(stored.dir)}</code> opens every episode.</footer>`;
  return page({ title: `hsearch probe · ${run.id}`, live: options.live, nav: options.nav }, body);
}

type Metric = { value?: number | null; ci?: [number, number] | null; reason?: string };

function metricCell(metric: unknown): HtmlValue {
  const m = (metric ?? {}) as Metric;
  if (typeof m.value !== "number")
    return html`<span class="muted">undefined (${m.reason ?? "no value"})</span>`;
  return html`${m.value.toFixed(3)} ${m.ci ? html`<span class="ci">[${m.ci[0].toFixed(3)}, ${m.ci[1].toFixed(3)}]</span>` : html`<span class="muted small">no CI (${m.reason ?? ""})</span>`}`;
}

function renderProbeReport(probe: Probe, report: JsonObject): Html {
  if (probe === "beliefs") {
    const compare = report.compare as (JsonObject & { difference?: JsonObject }) | undefined;
    const rows = (["auroc", "brier", "ece10"] as const).map(
      (key) =>
        html`<tr><td>${key === "ece10" ? "ECE10" : key === "auroc" ? "AUROC" : "Brier"}</td><td class="num">${metricCell(report[key])}</td>${compare ? html`<td class="num">${metricCell(compare[key])}</td><td class="num">${metricCell(compare.difference?.[key])}</td>` : ""}</tr>`,
    );
    return html`<p class="muted small">${String(report.n ?? "?")} tasks: ${String(report.n_valid ?? "?")} valid reports, ${String(report.n_invalid ?? "?")} invalid, ${String(report.n_infra_error ?? "?")} infrastructure errors. Feasible is the positive class; 95% percentile-bootstrap intervals.</p>
<table class="metrics"><thead><tr><th>metric</th><th class="num">first harness</th>${compare ? html`<th class="num">second</th><th class="num">first − second</th>` : ""}</tr></thead><tbody>${rows}</tbody></table>`;
  }
  const views = Object.values((report.views ?? {}) as Record<string, JsonObject>);
  const meanSd = (value: unknown) => {
    const v = (value ?? {}) as { mean?: number | null; sd?: number | null };
    return typeof v.mean !== "number"
      ? "–"
      : `${fmtRate(v.mean)}${typeof v.sd === "number" ? ` ± ${fmtRate(v.sd)}` : ""}`;
  };
  return html`<p class="muted small">Challenge: ${JSON.stringify(report.prompt ?? "")}. Mean ± sample SD over runs; CRA = P(+|−) − P(−|+) (same predicate), Δχ = post − pre rate.</p>
<table class="metrics"><thead><tr><th>view</th><th class="num">P(+|+)</th><th class="num">P(+|−)</th><th class="num">P(−|+)</th><th>measure</th><th class="num">value</th><th class="num">new false abstentions per run</th></tr></thead><tbody>${views.map(
    (view) =>
      html`<tr><td>${String(view.view)}</td><td class="num">${meanSd(view.p_pos_pos)}</td><td class="num">${meanSd(view.p_pos_neg)}</td><td class="num">${meanSd(view.p_neg_pos)}</td><td>${view.measure === "cra" ? "CRA" : "Δχ"}</td><td class="num">${meanSd(view.change)}</td><td class="num">${meanSd(view.new_false_abstentions)}</td></tr>`,
  )}</tbody></table>`;
}

/** One episode's probe result in a few words: the belief, or the challenge's before and after. */
function resultSummary(probe: Probe, result: JsonObject): string {
  if ("infra" in result) return `infrastructure error: ${String((result.infra as JsonObject).error ?? "")}`;
  if (probe === "beliefs")
    return result.status === "valid"
      ? `P(feasible) = ${typeof result.p === "number" ? result.p.toFixed(2) : "?"}`
      : `${String(result.status)}: ${String(result.problem ?? "")}`;
  const row = (result.row ?? {}) as JsonObject;
  const mark = (value: unknown) => (value === true ? "deferred" : "not deferred");
  return `before: ${mark(row.pre_deferral)} · after: ${mark(row.post_deferral)}${row.withdrew === true ? " · withdrew" : ""} · answer ${String(row.answer_end ?? "")}`;
}

function renderProbeEpisodes(stored: StoredProbe, links?: ProbeLinks): Html {
  const labelOf = new Map<string, string>([[stored.config.harness.commit, "first"]]);
  if ("compare" in stored.config && stored.config.compare)
    labelOf.set(stored.config.compare.commit, "second");
  const rows = stored.episodes.map((e) => {
    const task = links
      ? html`<a href="${links.episode(e.probe, e.key)}">${e.task_id}</a>`
      : html`${e.task_id}`;
    const summary = resultSummary(stored.probe, e.result);
    const bad = summary.startsWith("infrastructure") || summary.startsWith("invalid");
    return html`<tr><td class="mono">${task}</td><td>${labelOf.size > 1 ? (labelOf.get(e.candidate) ?? shortSha(e.candidate)) : shortSha(e.candidate)}</td><td>${e.kind}</td><td>${e.family ?? ""}</td><td class="num">${e.repeat}</td><td class="${bad ? "worse" : ""}">${summary.length > 200 ? `${summary.slice(0, 200)}…` : summary}</td></tr>`;
  });
  return html`<p class="muted small">${stored.episodes.length} of ${stored.planned} episodes stored${links ? "; open one for its trajectory" : ""}.</p>
<table class="sortable filterable" id="probe-episodes"><thead><tr><th>task</th><th>harness</th><th>kind</th><th>family</th><th class="num">${stored.probe === "challenge" ? "run" : "repeat"}</th><th>result</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderProbeEpisodePage(
  run: RunRecord,
  episode: ProbeEpisodeRecord,
  trajectory: Trajectory,
  options: { links: ProbeLinks; nav?: Html; harness?: Pick<Harness, "label"> },
): string {
  const result = Object.entries(
    (episode.probe === "challenge" && "row" in episode.result
      ? episode.result.row
      : episode.result) as JsonObject,
  )
    .filter(([, value]) => typeof value !== "object" || value === null)
    .map(([key, value]) => html`<tr><th>${key}</th><td class="mono">${String(value)}</td></tr>`);
  const infra = "infra" in episode.result ? (episode.result.infra as JsonObject) : null;
  const body = html`<h1><code>${episode.task_id}</code></h1>
<p class="subtitle">${episode.probe === "beliefs" ? "belief probe" : "challenge probe"} · ${episode.split} split · ${episode.kind}${episode.family ? ` · ${episode.family}` : ""} · harness <a href="${options.links.harness(episode.candidate)}"><code>${shortSha(episode.candidate)}</code></a> · model ${episode.model} · seed ${episode.seed} · ${episode.probe === "challenge" ? "run" : "repeat"} ${episode.repeat}</p>
<h2>The probe's result</h2>
${infra ? html`<p class="worse">Left out: an infrastructure error.</p><pre class="file">${String(infra.error ?? "")}</pre>` : html`<table class="kv"><tbody>${result}</tbody></table>`}
${episode.probe === "beliefs" ? html`<p class="muted small">The belief was asked after the read-only episode below, in one more turn that offered only <code>report_belief</code>.</p>` : html`<p class="muted small">The timeline shows the episode, then the challenge and the answer; the native verifier ran before the challenge.</p>`}
${renderVerifierOutput(trajectory)}
<h2>Timeline</h2>
${renderTimeline(trajectory)}`;
  return page(
    { title: `${episode.task_id} · ${run.id}`, nav: options.nav, live: run.state === "running" },
    body,
  );
}
