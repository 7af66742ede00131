/**
 * The run report (docs/DESIGN.md §8): one self-contained HTML page to review a run after (or during) the search. Pure:
 * `ReportData` in, a document out. Every value from the run is escaped by the `html` template.
 */

import { passed } from "../model/compare";
import type { TrajectoryExample } from "../model/examples";
import type { AcceptedChange, ReportData } from "../model/report-data";
import { diagnosticsSvgs } from "./diagnostics-plot";
import { fmtDelta, fmtRate, fmtTime, shortSha } from "./format";
import { type Html, type HtmlValue, html, trustedMarkup } from "./html";
import { type Links, page } from "./page";
import { scorePlotSvg } from "./score-plot";
import { pairedDeltaCell, renderComparisonTable, renderFlips } from "./sections/comparison";
import { renderChangeSummary, renderDiff } from "./sections/diff";
import { renderBlockedTable, renderFeasibleTable, renderHeadline } from "./sections/metrics";
import { renderRoundTable } from "./sections/rounds";
import { renderConfig, renderEvents, renderHeader, renderUsage } from "./sections/run-info";
import { renderRunMetrics } from "./sections/run-metrics";
import { scoreLine } from "./sections/score-line";
import { renderTimeline } from "./sections/timeline";

export interface ReportOptions {
  /** Set by the viewer: links to candidates and trajectories. */
  links?: Links;
  /** Set by the viewer for a running run: the page updates itself in place. */
  live?: boolean;
  nav?: Html;
}

const SECTIONS = [
  ["suites", "Seed vs final by suite"],
  ["progress", "Search progress"],
  ["diagnostics", "Round diagnostics"],
  ["rounds", "Rounds"],
  ["blocked", "Blocked tasks"],
  ["feasible", "Feasible tasks"],
  ["metrics", "Your metrics"],
  ["changes", "Accepted changes"],
  ["examples", "Example trajectories"],
  ["usage", "Usage"],
  ["config", "Configuration"],
  ["activity", "Activity"],
] as const;

export function renderReport(data: ReportData, options: ReportOptions = {}): string {
  return page(
    { title: `hsearch · ${data.run.id}`, live: options.live, nav: options.nav },
    renderReportBody(data, options.links),
  );
}

/** Seed → the final harness in full (outcomes, flips, diff): a link in the viewer, the command in the report. */
function seedToFinal(runId: string, finalLabel: string, compared: boolean, links?: Links): HtmlValue {
  if (!compared) return "";
  return links?.compare
    ? html`<p class="seed-to-final"><a href="${links.compare("seed", finalLabel)}">Compare seed → ${finalLabel}</a>: every split, the flipped episodes and the harness diff.</p>`
    : html`<p class="seed-to-final muted small">Seed → ${finalLabel} in full, with the harness diff: <code>hsearch diff ${runId} --from seed --to ${finalLabel}</code></p>`;
}

export function renderReportBody(data: ReportData, links?: Links): Html {
  const { seed, final, status } = data;
  const finalLabel = final?.role ?? "selected";
  const section = (id: (typeof SECTIONS)[number][0], body: HtmlValue) => {
    const title = SECTIONS.find(([key]) => key === id)?.[1] ?? id;
    return html`<section id="${id}"><h2>${title}</h2>${body}</section>`;
  };
  const compare = (body: (s: NonNullable<typeof seed>, f: NonNullable<typeof final>) => Html) =>
    seed && final
      ? body(seed, final)
      : html`<p class="muted">The seed harness has not been evaluated yet.</p>`;
  return html`<header>${renderHeader(data)}
<nav class="toc">${SECTIONS.filter(([id]) => id !== "metrics" || data.metrics).map(([id, title]) => html`<a href="#${id}">${title}</a>`)}</nav>
${renderHeadline(seed, final, data.comparisons)}${renderInProgress(data, links)}</header>
${section(
  "suites",
  data.comparisons.length === 0
    ? html`<p class="muted">The seed is still the ${finalLabel} harness: nothing to compare yet.</p>`
    : data.comparisons.map(
        (
          c,
        ) => html`<h3>${c.purpose === "heldout" ? "held-out" : c.purpose} split</h3>${renderComparisonTable(c, { before: "seed", after: finalLabel })}
${c.flips.length > 0 ? html`<details class="flips" id="suite-flips-${c.purpose}"><summary>${c.flips.length} flipped episodes</summary>${renderFlips(c, links)}</details>` : ""}`,
      ),
)}${seedToFinal(data.run.id, finalLabel, data.comparisons.length > 0, links)}
${section(
  "progress",
  html`<p class="muted small">The incumbent's search score after each round (line) and each proposal's search score (dots; hover for the proposal). Scores are the ${status.objective} objective on the search split.</p>
<div class="plot">${trustedMarkup(scorePlotSvg(data.plot, { title: `Search score per round of run ${data.run.id}` }))}</div>`,
)}
${section(
  "diagnostics",
  html`<p class="muted small">Per round on the search split: the incumbent after the round (solid line) and every proposal (dots; filled when accepted${links ? "; click one to open it" : ""}); with <code>heldout.per_round</code>, the incumbent on the held-out split (dashed) and the independent split (dotted), never read by the search. Then the incumbent's failed blocked search episodes by failure mode (the proposer digest's classification, first mode that applies), and tokens, cost and wall time of each candidate's search evaluation.</p>
<div class="panels">${diagnosticsSvgs(data.diagnostics.candidates, data.diagnostics.rounds, links?.candidate).map((svg) => trustedMarkup(svg))}</div>`,
)}
${section("rounds", renderRoundTable(status, links, new Map(Object.entries(data.episodes)), new Map(Object.entries(data.deltas))))}
${section(
  "blocked",
  compare(
    (
      s,
      f,
    ) => html`<p class="muted small">Rates over blocked episodes, seed against the ${finalLabel} harness: each with k/n and a 95% Wilson interval, and Δ with a 95% Newcombe interval, coloured only when it excludes 0. Post-hoc abstention is better lower; everything else higher. SPL is a mean, not a count: no interval.</p>
<h3>Search split</h3>${renderBlockedTable(s, f, "search")}
<h3>Held-out split</h3>${renderBlockedTable(s, f, "heldout")}`,
  ),
)}
${section(
  "feasible",
  compare(
    (
      s,
      f,
    ) => html`<p class="muted small">Feasible solve (native verifier reward 1) and false abstention (a certified deferral on a feasible task). The independent split is feasible only and never used for selection.</p>
${renderFeasibleTable(s, f)}`,
  ),
)}
${data.metrics ? section("metrics", renderRunMetrics(data.metrics)) : ""}
${section("changes", renderChanges(data.accepted, links))}
${section("examples", renderExamples(data.examples, finalLabel, links))}
${section("usage", renderUsage(status.usage))}
${section("config", renderConfig(data.run.config))}
${section("activity", renderEvents(data.events))}
<footer>Generated by hsearch on ${fmtTime(data.generatedAt)} from ${data.run.id}/run.db. Held-out results are shown for review; no proposer or acceptance rule ever read them.</footer>`;
}

function renderChanges(changes: readonly AcceptedChange[], links?: Links): Html {
  if (changes.length === 0)
    return html`<p class="muted">No proposal has been accepted: the incumbent is the seed harness.</p>`;
  return html`<p class="muted small">The diff of every accepted proposal against the incumbent it was proposed from, in order. Together they turn the seed into the current harness.</p>
${changes.map((change) => {
  const commit = links
    ? html`<a href="${links.candidate(change.commit)}">${shortSha(change.commit)}</a>`
    : shortSha(change.commit);
  const body =
    "text" in change.diff
      ? renderDiff(change.diff.text)
      : html`<p class="worse">The diff could not be read: ${change.diff.error}</p>`;
  return html`<div class="change"><h3>Round ${change.round} · ${change.id} · <code>${commit}</code></h3>
<p class="meta">${change.rationale}</p>
<p class="muted small">search score ${fmtRate(change.parentScore)} → ${fmtRate(change.score)} (Δ ${change.delta ? pairedDeltaCell(change.delta) : fmtDelta(change.score, change.parentScore)})${change.parent ? html` · parent <code>${shortSha(change.parent)}</code>` : ""}${change.reason ? html` · verdict: ${change.reason}` : ""}</p>
${renderChangeSummary(change)}
${change.comparisons.map((c) => html`${renderComparisonTable(c, { before: "parent", after: change.id })}${c.flips.length > 0 ? html`<details class="flips" id="flips-${change.id}"><summary>${c.flips.length} flipped episodes (${c.mcnemar.gains} fail → pass, ${c.mcnemar.losses} pass → fail)</summary>${renderFlips(c, links)}</details>` : ""}`)}
${body}</div>`;
})}`;
}

const CATEGORY_TITLE: Record<TrajectoryExample["category"], string> = {
  "blocked-failed": "Blocked task, failed",
  "blocked-passed": "Blocked task, passed",
  "feasible-failed": "Feasible task, failed",
  "feasible-passed": "Feasible task, passed",
};

function renderExamples(examples: readonly TrajectoryExample[], finalLabel: string, links?: Links): Html {
  if (examples.length === 0)
    return html`<p class="muted">No trajectory of the ${finalLabel} harness is stored yet.</p>`;
  const purpose = examples[0]?.purpose === "heldout" ? "held-out" : "search";
  return html`<p class="muted small">Episodes of the ${finalLabel} harness on the ${purpose} split, each from the step to look at; earlier steps are folded. Examples are picked within each suite. Every event names its author: the agent, the harness, the customer (retail), the task's instruction (terminal), or env for tool results. Where the seed ran the same task, seed and repeat, its episode is shown beside.</p>
${examples.map((example) => {
  const passed = example.category.endsWith("passed");
  const { rollout } = example;
  const full = links
    ? html` · <a href="${links.rollout(example.purpose, rollout.key)}">full trajectory</a>${links.pair && example.seedKey ? html` · <a class="with-seed" href="${links.pair(example.purpose, example.seedKey, rollout.key)}">side by side with the seed</a>` : ""}`
    : "";
  // The trajectory says its suite (a plug-in's too); the task id only hints at a built-in one.
  const suite = example.trajectory.suite;
  return html`<div class="example" data-suite="${suite}"><div class="head"><h3>${suite} · ${CATEGORY_TITLE[example.category]}${rollout.family ? ` · ${rollout.family}` : ""}</h3>
<span class="badge ${passed ? "passed" : "failed"}">${example.outcome}</span></div>
<p class="muted small"><code>${rollout.task_id}</code> · ${example.purpose === "heldout" ? "held-out" : example.purpose} · seed ${rollout.seed} · ${rollout.steps} steps · ${scoreLine(rollout)}${full}</p>
${example.seedEpisode ? renderWithSeed(example, finalLabel) : renderTimeline(example.trajectory, { focus: example.focus, foldBeforeFocus: true })}</div>`;
})}`;
}

/** The same task, seed and repeat under the seed harness (left) and the final one (right). */
function renderWithSeed(example: TrajectoryExample, finalLabel: string): Html {
  const seed = example.seedEpisode as NonNullable<TrajectoryExample["seedEpisode"]>;
  const column = (label: string, rollout: TrajectoryExample["rollout"], timeline: Html) =>
    html`<div><h4>${label} <span class="badge ${passed(rollout) ? "passed" : "failed"}">${passed(rollout) ? "passed" : "failed"}</span></h4><p class="muted small">${rollout.steps} steps · ${scoreLine(rollout)}</p>${timeline}</div>`;
  return html`<div class="side-by-side with-seed">${column("seed", seed.rollout, renderTimeline(seed.trajectory, { focus: example.focus, foldBeforeFocus: true }))}${column(finalLabel, example.rollout, renderTimeline(example.trajectory, { focus: example.focus, foldBeforeFocus: true }))}</div>`;
}

function renderInProgress(data: ReportData, links?: Links): Html {
  if (data.inProgress.length === 0) return html``;
  return html`<div class="banner running in-progress">${data.inProgress.map((p) => {
    const id = links ? html`<a href="${links.candidate(p.commit)}">${p.id}</a>` : p.id;
    const eta = p.etaSeconds === null ? "" : ` · about ${fmtSeconds(p.etaSeconds)} left`;
    return html`<div>${id} under evaluation: <strong class="rollouts-done">${p.done}/${p.total > 0 ? p.total : "?"}</strong> rollouts${eta}</div>`;
  })}</div>`;
}

function fmtSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
