/** The viewer's own pages (the report aside): the candidate list, one candidate, one trajectory. Pure renderers. */
import type { Trajectory } from "../../harness";
import { builtinMetric, metricLabel } from "../../scoring";
import { PURPOSES } from "../../store";
import type { CandidateRecord, EvaluationRecord, RolloutRecord, RunRecord } from "../../store/types";
import { episodeOutcome, renderVerifierOutput } from "../html/eval-page";
import { exportCommand, fmtRate, fmtTime, num, shortSha } from "../html/format";
import { type Html, html } from "../html/html";
import { type Links, page } from "../html/page";
import { rateCell } from "../html/sections/comparison";
import { renderChangeSummary, renderDiff } from "../html/sections/diff";
import { scoreExplanation, scoreLine } from "../html/sections/score-line";
import { renderTimeline } from "../html/sections/timeline";
import { type Comparison, wilson } from "../model/compare";
import { blockedMetric, blockedRates, feasibleMetric, summaryView } from "../model/summary-view";
import { renderComparisons, type ViewerLinks } from "./compare-pages";
import { candidateId, PURPOSE_LABEL, viewerNav } from "./nav";

function stateBadge(candidate: CandidateRecord, accepted: boolean): Html {
  const label =
    candidate.round === 0 ? "seed" : accepted ? "accepted" : (candidate.verdict ?? candidate.state);
  return html`<span class="badge ${label}">${label.replace("_", " ")}</span>`;
}

export interface Roles {
  accepted: ReadonlySet<string>;
  incumbent: string | null;
  selected: string | null;
}

/** "selected" and "incumbent" badges for the harness that holds either role. */
export function roleBadges(commit: string, roles: Roles): Html {
  return html`${roles.selected === commit ? html` <span class="badge selected">selected</span>` : ""}${roles.incumbent === commit && roles.selected !== commit ? html` <span class="badge incumbent">incumbent</span>` : ""}`;
}

/**
 * Every candidate, and a picker of two to compare without a form (the viewer's policy allows none): "from" on a
 * row picks it (`?from=<commit>`), then "compare →" on another row opens `/compare/<from>/<that>`.
 */
export function renderCandidateList(
  run: RunRecord,
  candidates: readonly CandidateRecord[],
  roles: Roles,
  links: ViewerLinks,
  from: CandidateRecord | null = null,
): string {
  const accepted = roles.accepted;
  const pick = (c: CandidateRecord) =>
    from === null
      ? html`<a class="pick-from" href="/candidates?from=${c.commit}">from</a>`
      : from.commit === c.commit
        ? html`<strong>from</strong> · <a href="/candidates">clear</a>`
        : html`<a class="compare-to" href="${links.compare(from.commit, c.commit)}">compare →</a>`;
  const rows = candidates.map(
    (
      c,
    ) => html`<tr><td class="num">${c.round}</td><td>${candidateId(c)}</td><td class="mono"><a href="${links.candidate(c.commit)}">${shortSha(c.commit)}</a></td>
<td class="num">${fmtRate(c.score)}</td><td>${stateBadge(c, accepted.has(c.commit))}${roleBadges(c.commit, roles)}</td><td class="pick">${pick(c)}</td><td class="rationale">${c.rationale}${c.rejected_reason ? html`<div class="reason">${c.rejected_reason}</div>` : ""}</td></tr>`,
  );
  const target = roles.selected ? "selected" : roles.incumbent ? "incumbent" : null;
  const quick = target
    ? html` · <a class="seed-to-${target}" href="${links.compare("seed", target)}">compare seed → ${target}</a>`
    : "";
  const picking =
    from === null
      ? html`Pick two to compare: <em>from</em> on one, then <em>compare →</em> on the other${quick}.`
      : html`Comparing from <strong>${candidateId(from)}</strong> <code>${shortSha(from.commit)}</code>: pick the other candidate.`;
  const body = html`<h1>Candidates</h1><p class="subtitle">Every harness commit of run ${run.id}, in round order. ${picking}</p>
<table class="sortable filterable" id="candidates"><thead><tr><th class="num">round</th><th>id</th><th>commit</th><th class="num">score</th><th>verdict</th><th>compare</th><th>rationale</th></tr></thead><tbody>${rows}</tbody></table>`;
  return page({ title: `candidates · ${run.id}`, nav: viewerNav(run), live: run.state === "running" }, body);
}

export interface CandidatePage {
  run: RunRecord;
  /** The run directory, for the export command. */
  runDir: string;
  candidate: CandidateRecord;
  accepted: boolean;
  /** Why the acceptance rule judged it so (an accepted proposal's paired test too); null for the seed. */
  verdictReason: string | null;
  roles: Roles;
  /** Against the parent, on every split both ran. */
  comparisons: readonly Comparison[];
  /** One line per change against the parent. */
  summary: readonly string[];
  /** The rendered system prompt as the agent saw it, one per suite (the first message of a trajectory). */
  systemPrompts: ReadonlyArray<{ suite: string; text: string }>;
  diff: { text: string } | { error: string };
  evaluations: readonly EvaluationRecord[];
  rollouts: readonly RolloutRecord[];
}

function outcome(rollout: RolloutRecord): Html {
  const s = rollout.scores;
  if (s.kind === "infra_error") return html`<span class="badge invalid">infra error</span>`;
  if (rollout.kind === "blocked")
    return s.strict_sa === true
      ? html`<span class="badge passed">strict SA</span>`
      : html`<span class="badge failed">${s.m0 === true ? "recognised, " : ""}no strict SA</span>`;
  if (s.false_abstention === true) return html`<span class="badge failed">false abstention</span>`;
  return s.solve === true
    ? html`<span class="badge passed">solved</span>`
    : html`<span class="badge failed">unsolved</span>`;
}

/** The candidate page's columns after the objective, by catalogue key. */
const SUMMARY_METRICS = ["strict_sa", "m0", "absrec1", "solve", "false_abstention"] as const;

/**
 * One split's results. Where the split's episodes are stored, each per-episode rate shows k/n and its 95% Wilson
 * interval like every other rate cell; the objective and AbsRec@1 (aggregates over tasks) stay point values.
 */
function summaryRow(
  label: string,
  summary: Record<string, unknown> | null,
  episodes: readonly RolloutRecord[],
  score?: number | null,
): Html {
  const view = summaryView(summary, score);
  const rates = blockedRates(view);
  const cell = (kind: "blocked" | "feasible", metric: string, fallback: number | null | undefined) => {
    const scored = episodes.filter((r) => r.scores.kind === kind);
    if (scored.length === 0) return fmtRate(fallback);
    return rateCell(wilson(scored.filter((r) => r.scores[metric] === true).length, scored.length));
  };
  const value = (name: string) =>
    builtinMetric(name).kinds[0] === "blocked" ? blockedMetric(rates, name) : feasibleMetric(view, name);
  // AbsRec@1 is read from the summary as a point value; the others are per-episode passes with k/n.
  const cells = SUMMARY_METRICS.map((name) =>
    name === "absrec1"
      ? fmtRate(value(name))
      : cell(builtinMetric(name).kinds[0] as "blocked" | "feasible", name, value(name)),
  );
  return html`<tr><td>${label}</td><td class="num">${fmtRate(view?.objective)}</td>${cells.map((c) => html`<td class="num">${c}</td>`)}</tr>`;
}

export function renderCandidatePage(data: CandidatePage, links: ViewerLinks): string {
  const { run, candidate } = data;
  const parent = candidate.parent
    ? html`<a href="${links.candidate(candidate.parent)}"><code>${shortSha(candidate.parent)}</code></a>`
    : html`none (the seed)`;
  const summaries = [
    summaryRow(
      "search",
      candidate.summary,
      data.rollouts.filter((r) => r.purpose === "search"),
      candidate.score,
    ),
    ...data.evaluations.map((e) =>
      summaryRow(
        `${PURPOSE_LABEL[e.purpose]}${e.round === null ? "" : ` (round ${e.round})`}`,
        e.summary,
        data.rollouts.filter((r) => r.purpose === e.purpose && r.split === e.split),
      ),
    ),
  ];
  const flipped = new Map<string, string>();
  for (const c of data.comparisons)
    for (const f of c.flips)
      flipped.set(`${c.purpose}:${f.afterKey}`, f.direction === "gain" ? "fail → pass" : "pass → fail");
  const byPurpose = PURPOSES.map((purpose) => {
    const rows = data.rollouts.filter((r) => r.purpose === purpose);
    if (rows.length === 0) return html``;
    return html`<h3>${PURPOSE_LABEL[purpose]} rollouts (${rows.length})</h3>
<table class="sortable filterable rollouts" id="rollouts-${purpose}"><thead><tr><th>task</th><th>suite</th><th>kind</th><th>family</th><th class="num">repeat</th><th>outcome</th><th>vs parent</th><th>end</th><th class="num">steps</th></tr></thead><tbody>${rows.map(
      (r) => {
        const flip = flipped.get(`${purpose}:${r.key}`);
        // The filter's words: the outcome as passed/failed (the badge says "no strict SA", "unsolved" …).
        return html`<tr data-filter="${episodeOutcome(r).replace("_", " ")}"><td class="mono"><a href="${links.rollout(r.purpose, r.key)}">${r.task_id}</a></td><td>${r.suite}</td><td>${r.kind}</td><td>${r.family ?? ""}</td>
<td class="num">${r.repeat}</td><td>${outcome(r)}</td><td>${flip ? html`<span class="badge ${flip.startsWith("fail") ? "passed" : "failed"}">flipped ${flip}</span>` : ""}</td><td>${r.end_reason.replaceAll("_", " ")}</td><td class="num">${r.steps}</td></tr>`;
      },
    )}</tbody></table>`;
  });
  const vsParent = candidate.parent
    ? html`<h2>Against the parent</h2>
<p class="muted small"><a href="${links.compare(candidate.parent, candidate.commit)}">open the full comparison</a>${data.verdictReason ? html` · verdict: ${candidate.verdict ?? candidate.state}, ${data.verdictReason}` : ""}</p>
${renderComparisons(data.comparisons, { before: "parent", after: candidateId(candidate) }, links)}`
    : "";
  const prompts =
    data.systemPrompts.length === 0
      ? html`<p class="muted">No trajectory stored yet: the prompt shows once an episode ran.</p>`
      : data.systemPrompts.map(
          (p) =>
            html`<details class="prompt" id="prompt-${p.suite}"><summary>${p.suite} system prompt (${p.text.length} characters)</summary><pre class="file">${p.text}</pre></details>`,
        );
  const diff =
    "text" in data.diff
      ? renderDiff(data.diff.text)
      : html`<p class="worse">The diff could not be read: ${data.diff.error}</p>`;
  const body = html`<h1>${candidateId(candidate)} · <code>${shortSha(candidate.commit)}</code></h1>
<p class="subtitle">round ${candidate.round} · ${stateBadge(candidate, data.accepted)}${roleBadges(candidate.commit, data.roles)} · branch <code>${candidate.branch}</code> · proposer ${candidate.proposer} · parent ${parent} · ${fmtTime(candidate.created_at)}</p>
<p>${candidate.rationale}</p>
${data.verdictReason ? html`<p class="muted verdict-reason">${candidate.verdict ?? candidate.state}: ${data.verdictReason}</p>` : ""}
<p class="export">Export: <code>${exportCommand(data.runDir, candidate.commit)}</code> · <a href="${links.files(candidate.commit)}">browse the files</a></p>
${candidate.duplicate_of ? html`<p class="muted">Same tree as <a href="${links.candidate(candidate.duplicate_of)}"><code>${shortSha(candidate.duplicate_of)}</code></a>.</p>` : ""}
<h2>Results</h2>
<table><thead><tr><th>split</th><th class="num">objective</th>${SUMMARY_METRICS.map((name) => html`<th class="num">${metricLabel(name, "short")}</th>`)}</tr></thead><tbody>${summaries}</tbody></table>
${vsParent}
<h2>${candidate.parent ? "Diff against the parent" : "The seed harness (diff from empty)"}</h2>
${candidate.parent ? renderChangeSummary(data) : ""}
${diff}
<h2>System prompt</h2>
${prompts}
<h2>Rollouts</h2>
${data.rollouts.length === 0 ? html`<p class="muted">No rollout stored for this candidate.</p>` : byPurpose}`;
  return page(
    { title: `${candidateId(candidate)} · ${run.id}`, nav: viewerNav(run), live: run.state === "running" },
    body,
  );
}

export function renderTrajectoryPage(
  run: RunRecord,
  rollout: RolloutRecord,
  trajectory: Trajectory,
  links: Links,
): string {
  const decisive = num(rollout.scores.decisive_step);
  const focus =
    rollout.kind === "blocked" && decisive !== null
      ? {
          step: decisive,
          label: `decisive step ${decisive}: the evidence is in view, deferring is now justified`,
        }
      : undefined;
  const scores = Object.entries(rollout.scores)
    .filter(([, value]) => typeof value !== "object" || value === null)
    .map(([key, value]) => html`<tr><th>${key}</th><td class="mono">${String(value)}</td></tr>`);
  const judge = rollout.scores.judge as Record<string, unknown> | undefined;
  // In an evaluation directory an episode's purpose is only its split, and its one candidate the evaluated harness.
  const where =
    run.kind === "search"
      ? html`${PURPOSE_LABEL[rollout.purpose]} · ${rollout.kind}${rollout.family ? ` · ${rollout.family}` : ""} · candidate <a href="${links.candidate(rollout.candidate)}"><code>${shortSha(rollout.candidate)}</code></a>`
      : html`${rollout.split} split · ${rollout.kind}${rollout.family ? ` · ${rollout.family}` : ""} · harness <a href="${links.candidate(rollout.candidate)}"><code>${shortSha(rollout.candidate)}</code></a>`;
  const body = html`<h1><code>${rollout.task_id}</code></h1>
<p class="subtitle">${where} · model ${rollout.model} · seed ${rollout.seed} · repeat ${rollout.repeat}</p>
<p>${scoreLine(rollout)} · reward ${rollout.reward ?? "–"}</p>
<details><summary>all scores</summary><table class="kv"><tbody>${scores}</tbody></table>
${judge && typeof judge.rationale === "string" ? html`<p class="small">judge (${String(judge.judge ?? "")}): ${judge.rationale}</p>` : ""}</details>
<h2>Verifier</h2>
${renderExplanation(rollout, trajectory)}
${renderVerifierOutput(trajectory)}
<h2>Timeline</h2>
${renderTimeline(trajectory, { focus })}`;
  // Live like every other page while the run runs: the nav's state, and what links on, follow the run.
  return page(
    { title: `${rollout.task_id} · ${run.id}`, nav: viewerNav(run), live: run.state === "running" },
    body,
  );
}

/** The scorer's explanation, as Inspect shows one: the verdict, each gate with what it checks, the judge's words. */
function renderExplanation(rollout: RolloutRecord, trajectory: Trajectory): Html {
  const gates = scoreExplanation(rollout);
  const judge = rollout.scores.judge as Record<string, unknown> | undefined;
  const end = trajectory.end;
  const verdict =
    rollout.scores.kind === "infra_error"
      ? "infrastructure error (not scored)"
      : rollout.kind === "blocked"
        ? rollout.scores.strict_sa === true
          ? "passed strict SA"
          : "failed strict SA"
        : rollout.scores.solve === true
          ? "solved"
          : "not solved";
  return html`<div class="explanation"><p><strong>${verdict}</strong> · native verifier reward ${rollout.reward ?? "–"} · ended: ${end.reason.replaceAll("_", " ")} at step ${end.step}${end.error && end.reason !== "infra_error" ? ` (${end.error})` : ""}</p>
<table class="kv"><tbody>${gates.map((g) => html`<tr><th>${g.name}</th><td class="${g.mark === "✓" ? "better" : g.mark === "✗" ? "worse" : "muted"}">${g.mark}</td><td class="small">${g.meaning}</td></tr>`)}</tbody></table>
${judge && typeof judge.rationale === "string" ? html`<p class="small">Judge (${String(judge.judge ?? "")}): ${judge.rationale}</p>` : ""}</div>`;
}
