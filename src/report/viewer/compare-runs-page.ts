/**
 * The viewer's page of two runs or evaluations side by side (`hsearch compare A B --view`, `/compare-runs`): who
 * is compared, what each spent, per split the paired outcomes (Δ B − A with its 95% Bonett–Price interval for paired
 * data, McNemar on the flips) and the flipped episodes, the config's differing fields, the harness diff. The
 * viewer serves run A, so A's episodes link to their pages; B's are named. Pure renderer.
 */
import type { PairedRow, PairedSplit, RunComparison } from "../../compare";
import { metricLabel, pValueText } from "../../scoring";
import { fmtRate, shortSha } from "../html/format";
import { type Html, html } from "../html/html";
import { page } from "../html/page";
import { deltaCell } from "../html/sections/comparison";
import { renderDiff } from "../html/sections/diff";
import type { ViewerLinks } from "./compare-pages";
import { PURPOSE_LABEL } from "./nav";

function splitSection(split: PairedSplit, links: ViewerLinks): Html {
  const n = (row: PairedRow) =>
    row.table.both + row.table.firstOnly + row.table.secondOnly + row.table.neither;
  const rows = split.rows.map(
    (row) =>
      html`<tr data-group="${row.group}" data-metric="${row.metric}"><td>${row.group}</td><td>${metricLabel(row.metric)}${row.lowerIsBetter ? html` <span class="muted small">(lower is better)</span>` : ""}</td><td class="num">${fmtRate(row.a / n(row))} <span class="kn">${row.a}/${n(row)}</span></td><td class="num">${fmtRate(row.b / n(row))} <span class="kn">${row.b}/${n(row)}</span></td><td class="num" data-sort="${row.delta ?? ""}">${deltaCell(row, row.lowerIsBetter)}</td><td class="num mcnemar">${row.mcnemar.b} vs ${row.mcnemar.c} · p = ${pValueText(row.mcnemar.p_value)}</td></tr>`,
  );
  const flips = split.flips.map(
    (f) =>
      html`<tr class="flip ${f.direction}" data-direction="${f.direction}"><td><span class="badge ${f.direction === "gain" ? "passed" : "failed"}">${f.direction === "gain" ? "fail → pass" : "pass → fail"}</span></td><td class="mono">${f.task_id}</td><td class="num">${f.repeat}</td><td>${f.kind}${f.family ? ` · ${f.family}` : ""}</td><td><a href="${links.rollout(split.purpose, f.aKey)}">A's episode</a> · <span class="muted mono small">B ${f.bKey}</span></td></tr>`,
  );
  const unpaired =
    split.onlyA + split.onlyB > 0
      ? html` Not paired: ${split.onlyA} of A's episodes, ${split.onlyB} of B's.`
      : "";
  return html`<section class="split" id="split-${split.purpose}"><h2>${PURPOSE_LABEL[split.purpose]} split</h2>
<p class="muted small">${split.paired} episodes on ${split.tasks} tasks run by both (same task, same repeat).${unpaired}</p>
<table class="compare runs-compare sortable"><thead><tr><th>group</th><th>metric</th><th class="num">A</th><th class="num">B</th><th class="num">Δ B − A (95%)</th><th class="num">A only vs B only · McNemar</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted small">Δ with Bonett and Price's adjusted Wald interval for paired proportions, coloured only when it excludes 0. McNemar's exact test on the discordant pairs. The same numbers as the report and hsearch diff --from --to print.</p>
<details class="flips" id="flips-${split.purpose}" ${split.flips.length <= 12 ? "open" : ""}><summary>${split.flips.length} flipped episode${split.flips.length === 1 ? "" : "s"}</summary>
${split.flips.length === 0 ? html`<p class="muted">No episode changed outcome.</p>` : html`<table class="flips sortable filterable"><thead><tr><th>flip (A → B)</th><th>task</th><th class="num">repeat</th><th>kind</th><th>episodes</th></tr></thead><tbody>${flips}</tbody></table>`}</details></section>`;
}

const usd = (v: number) => `$${v.toFixed(2)}`;

export function renderRunComparisonPage(c: RunComparison, nav: Html, links: ViewerLinks): string {
  const side = (label: string, s: RunComparison["a"], linked: boolean) =>
    html`<tr data-side="${label}"><th>${label}</th><td class="mono">${s.dir}</td><td>${s.kind === "search" ? `search · ${s.objective ?? ""}` : s.kind} · ${s.state}</td><td>${s.role === s.candidate ? s.candidate : `${s.role} (${s.candidate})`} ${linked ? html`<a href="${links.candidate(s.commit)}"><code>${shortSha(s.commit)}</code></a>` : html`<code>${shortSha(s.commit)}</code>`}</td><td class="num">${s.score === null ? "–" : s.score.toFixed(4)}</td></tr>`;
  const splits = ["search", "heldout", "independent", "diagnostic"] as const;
  const spent = [
    ["rounds", c.a.spent.rounds, c.b.spent.rounds],
    ["candidates", c.a.spent.candidates, c.b.spent.candidates],
    ...splits
      .filter((s) => c.a.spent.rollouts[s] !== undefined || c.b.spent.rollouts[s] !== undefined)
      .map((s) => [`rollouts, ${PURPOSE_LABEL[s]}`, c.a.spent.rollouts[s] ?? 0, c.b.spent.rollouts[s] ?? 0]),
    ["cost", usd(c.a.spent.usd), usd(c.b.spent.usd)],
    [
      "time worked",
      `${(c.a.spent.active_ms / 60_000).toFixed(1)} min`,
      `${(c.b.spent.active_ms / 60_000).toFixed(1)} min`,
    ],
  ].map(
    ([what, a, b]) =>
      html`<tr><td>${String(what)}</td><td class="num">${String(a)}</td><td class="num">${String(b)}</td></tr>`,
  );
  const config =
    c.config.length === 0
      ? html`<p class="muted">The two configs are the same.</p>`
      : html`<table class="config-diff"><thead><tr><th>field</th><th>A</th><th>B</th></tr></thead><tbody>${c.config.map(
          (d) =>
            html`<tr><td class="mono">${d.field}</td><td class="mono wrap">${d.a ?? html`<span class="muted">(absent)</span>`}</td><td class="mono wrap">${d.b ?? html`<span class="muted">(absent)</span>`}</td></tr>`,
        )}</tbody></table>`;
  const body = html`<h1>Compare two runs</h1>
<p class="subtitle">The two harnesses on the tasks both ran, paired task by task. In the terminal: <code>hsearch compare ${c.a.dir} ${c.b.dir}</code></p>
<table class="sides"><thead><tr><th></th><th>directory</th><th>kind</th><th>harness</th><th class="num">search score</th></tr></thead><tbody>${side("A", c.a, true)}${side("B", c.b, false)}</tbody></table>
<h2>Spent</h2>
<table class="spent"><thead><tr><th></th><th class="num">A</th><th class="num">B</th></tr></thead><tbody>${spent}</tbody></table>
${c.splits.map((split) => splitSection(split, links))}
<h2>Config differences</h2>
${config}
<h2>Harness diff (A → B)</h2>
${c.sameHarness ? html`<p class="muted">The two harnesses have the same files.</p>` : renderDiff(c.diff)}`;
  return page({ title: `compare · ${c.a.id} · ${c.b.id}`, nav }, body);
}
