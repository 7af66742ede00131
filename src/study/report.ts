import { createHash } from "node:crypto";
import { type Html, html, page } from "../report";
import type { StudyStep } from "./plan";
import { cellText, type StudyTable, tableCsv, tableLatex, tableMarkdown } from "./table";

/**
 * The study report as files (path under the report directory → content), pure: an HTML page, a page of every
 * step's directory with the commands that open it, and each table as Markdown, CSV and LaTeX. Nothing in it
 * depends on when or where the study ran (no clock, no absolute path), so its content hash is the study's.
 */
export function studyReportFiles(
  title: string,
  tables: readonly StudyTable[],
  steps: readonly StudyStep[],
): Map<string, string> {
  const files = new Map<string, string>();
  for (const table of tables) {
    files.set(`tables/${table.id}.md`, tableMarkdown(table));
    files.set(`tables/${table.id}.csv`, tableCsv(table));
    files.set(`tables/${table.id}.tex`, tableLatex(table));
  }
  files.set("tables.md", `# ${title}\n\n${tables.map(tableMarkdown).join("\n")}`);
  files.set("index.html", page({ title }, reportBody(title, tables)));
  files.set("steps.html", page({ title: `${title}: steps` }, stepsBody(title, steps)));
  files.set("tables.json", `${JSON.stringify(tables, null, 2)}\n`);
  return files;
}

/** sha256 over every file's path and content, in path order. */
export function reportHash(files: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const path of [...files.keys()].sort()) hash.update(`${path}\0${files.get(path)}\0`);
  return hash.digest("hex");
}

function tableHtml(table: StudyTable): Html {
  return html`<section id="${table.id}">
<h2>${table.number} — ${table.title} <span class="muted small">(${table.benchmark})</span></h2>
<p class="muted small">Outcomes of ${table.source}. Also as <a href="tables/${table.id}.md">Markdown</a>, <a href="tables/${table.id}.csv">CSV</a>, <a href="tables/${table.id}.tex">LaTeX</a>.</p>
<table>
<thead><tr>${table.columns.map((c) => html`<th>${c.label}</th>`)}</tr></thead>
<tbody>${table.rows.map((row) => html`<tr>${table.columns.map((c) => html`<td>${cellText(row[c.key] ?? null)}</td>`)}</tr>`)}</tbody>
</table>
${table.notes.map((note) => html`<p class="small">${note}</p>`)}
<p class="small"><strong>Paper's value:</strong> ${table.reference}</p>
</section>`;
}

function reportBody(title: string, tables: readonly StudyTable[]): Html {
  const benchmarks = [...new Set(tables.map((t) => t.benchmark))];
  return html`<main>
<h1>${title}</h1>
<p>The self-awareness study's tables and figures by their numbers; a figure is given as the table of its data. Every rate shows its counts (k/n). <a href="steps.html">Every step's directory</a>.</p>
${benchmarks.map(
  (benchmark) => html`<h2>${benchmark}</h2>
<ul>${tables.filter((t) => t.benchmark === benchmark).map((t) => html`<li><a href="#${t.id}">${t.number}</a> — ${t.title}</li>`)}</ul>`,
)}
${tables.map(tableHtml)}
</main>`;
}

function stepsBody(title: string, steps: readonly StudyStep[]): Html {
  return html`<main>
<h1>${title}: every step</h1>
<p>Each step is a run, evaluation or probe directory under the study directory; open one with <code>hsearch status</code>, <code>hsearch view</code> or compare two with <code>hsearch compare</code> (paths relative to the study directory).</p>
<table>
<thead><tr><th>step</th><th>what</th><th>after</th><th>open with</th></tr></thead>
<tbody>${steps.map(
    (step) =>
      html`<tr><td>${step.id}</td><td>${step.label}</td><td>${step.deps.join(", ") || "–"}</td><td><code>hsearch status ${step.id}</code> · <code>hsearch view ${step.id}</code></td></tr>`,
  )}</tbody>
</table>
</main>`;
}
