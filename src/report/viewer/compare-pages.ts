/**
 * The viewer's comparison pages: any two candidates (`/compare/<a>/<b>`), one episode under two harnesses side by
 * side, a candidate's files and its rendered system prompt. Pure renderers over data the server looked up.
 */
import type { Trajectory } from "../../harness";
import type { CandidateRecord, Purpose, RolloutRecord, RunRecord } from "../../store/types";
import { exportCommand, shortSha } from "../html/format";
import { type Html, html } from "../html/html";
import { type Links, page } from "../html/page";
import { renderComparisonTable, renderFlips } from "../html/sections/comparison";
import { renderDiff } from "../html/sections/diff";
import { scoreLine } from "../html/sections/score-line";
import { renderTimeline } from "../html/sections/timeline";
import type { Comparison, Flip } from "../model/compare";
import { candidateId, PURPOSE_LABEL, viewerNav } from "./nav";

export interface ViewerLinks extends Links {
  compare(before: string, after: string): string;
  sideBySide(flip: Flip, comparison: Comparison): string;
  files(commit: string, path?: string): string;
}

export function sideBySideLink(purpose: Purpose, beforeKey: string, afterKey: string): string {
  return `/side-by-side/${purpose}/${encodeURIComponent(beforeKey)}/${encodeURIComponent(afterKey)}`;
}

/** A comparison on every split both candidates ran: Δ table and flips. */
export function renderComparisons(
  comparisons: readonly Comparison[],
  labels: { before: string; after: string },
  links: ViewerLinks,
): Html {
  if (comparisons.length === 0)
    return html`<p class="muted">The two candidates share no evaluated split yet.</p>`;
  return html`${comparisons.map(
    (c) => html`<h3>${PURPOSE_LABEL[c.purpose]} split</h3>${renderComparisonTable(c, labels)}
<details class="flips" id="flips-${c.purpose}" ${c.flips.length <= 12 ? "open" : ""}><summary>${c.flips.length} flipped episode${c.flips.length === 1 ? "" : "s"} (${c.mcnemar.gains} fail → pass, ${c.mcnemar.losses} pass → fail)</summary>${renderFlips(c, links)}</details>`,
  )}`;
}

export function renderComparePage(
  run: RunRecord,
  before: CandidateRecord,
  after: CandidateRecord,
  comparisons: readonly Comparison[],
  diff: { text: string } | { error: string },
  links: ViewerLinks,
): string {
  const name = (c: CandidateRecord) =>
    html`<a href="${links.candidate(c.commit)}">${candidateId(c)} <code>${shortSha(c.commit)}</code></a>`;
  const body = html`<h1>Compare ${candidateId(before)} → ${candidateId(after)}</h1>
<p class="subtitle">${name(before)} → ${name(after)} · <a href="${links.compare(after.commit, before.commit)}">swap</a> · in the terminal: <code>hsearch diff ${run.id} --from ${shortSha(before.commit)} --to ${shortSha(after.commit)}</code></p>
<h2>Outcomes</h2>
${renderComparisons(comparisons, { before: candidateId(before), after: candidateId(after) }, links)}
<h2>Harness diff</h2>
${"text" in diff ? renderDiff(diff.text) : html`<p class="worse">The diff could not be read: ${diff.error}</p>`}`;
  return page({ title: `compare · ${run.id}`, nav: viewerNav(run), live: true }, body);
}

export function renderSideBySidePage(
  run: RunRecord,
  episodes: ReadonlyArray<{ rollout: RolloutRecord; trajectory: Trajectory; label: string }>,
  links: Links,
): string {
  const first = episodes[0]?.rollout;
  const columns = episodes.map(
    ({
      rollout,
      trajectory,
      label,
    }) => html`<div><h2>${label} · <a href="${links.candidate(rollout.candidate)}"><code>${shortSha(rollout.candidate)}</code></a></h2>
<p class="small">${scoreLine(rollout)} · <a href="${links.rollout(rollout.purpose, rollout.key)}">alone</a></p>
${renderTimeline(trajectory)}</div>`,
  );
  const body = html`<h1><code>${first?.task_id ?? ""}</code> side by side</h1>
<p class="subtitle">${first ? PURPOSE_LABEL[first.purpose] : ""} · ${first?.kind ?? ""}${first?.family ? ` · ${first.family}` : ""} · repeat ${first?.repeat ?? ""} · the same task and seed under two harnesses</p>
<div class="side-by-side">${columns}</div>`;
  return page(
    {
      title: `${first?.task_id ?? "episode"} side by side · ${run.id}`,
      nav: viewerNav(run),
      live: run.state === "running",
    },
    body,
  );
}

export function renderFilesPage(
  run: RunRecord,
  runDir: string,
  candidate: CandidateRecord,
  files: Readonly<Record<string, string>>,
  selected: string | null,
  links: ViewerLinks,
): string {
  const list = Object.keys(files)
    .sort()
    .map(
      (path) =>
        html`<li>${path === selected ? html`<strong class="mono">${path}</strong>` : html`<a class="mono" href="${links.files(candidate.commit, path)}">${path}</a>`} <span class="muted small">${(files[path] ?? "").length} characters</span></li>`,
    );
  const shown = selected === null ? null : (files[selected] ?? null);
  const body = html`<h1>Files of ${candidateId(candidate)} · <a href="${links.candidate(candidate.commit)}"><code>${shortSha(candidate.commit)}</code></a></h1>
<p class="subtitle">${run.kind === "search" ? html`The harness as committed; <code>${exportCommand(runDir, candidate.commit)}</code> writes it out.` : html`The harness as evaluated, committed when the ${run.kind === "eval" ? "evaluation" : "probe"} began (content hash of its files in the run's config).`}</p>
<ul class="files">${list}</ul>
${shown === null ? "" : html`<h2 class="mono">${selected}</h2><pre class="file">${shown}</pre>`}`;
  return page(
    {
      title: `files · ${candidateId(candidate)} · ${run.id}`,
      nav: viewerNav(run),
      live: run.state === "running",
    },
    body,
  );
}
