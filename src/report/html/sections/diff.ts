import { diffWordsWithSpace } from "diff";
import { type Html, html } from "../html";

type DiffLineKind = "add" | "del" | "hunk" | "file" | "meta" | "context";

/** The kind of each line of a unified diff (git's output), for colouring. */
export function classifyDiffLine(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("diff --git ")) return "file";
  if (
    line.startsWith("index ") ||
    line.startsWith("new file mode") ||
    line.startsWith("deleted file mode") ||
    line.startsWith("similarity index") ||
    line.startsWith("rename ") ||
    line.startsWith("\\ No newline")
  )
    return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

/**
 * A unified diff, escaped, one coloured block per line. A run of removed lines followed by as many added lines is
 * read as those lines edited: the words that changed are marked inside them (<del>/<ins>), so a one-word edit
 * stands out in a long line.
 */
export function renderDiff(text: string): Html {
  const lines = text.replace(/\n$/, "").split("\n");
  if (text.trim() === "") return html`<p class="muted">(no changes)</p>`;
  const kinds = lines.map(classifyDiffLine);
  const out: Html[] = [];
  for (let i = 0; i < lines.length; ) {
    let dels = 0;
    while (kinds[i + dels] === "del") dels++;
    let adds = 0;
    while (dels > 0 && kinds[i + dels + adds] === "add") adds++;
    if (dels > 0 && dels === adds) {
      // All removals first, then all additions, as git prints them.
      const added: Html[] = [];
      for (let k = 0; k < dels; k++) {
        const [before, after] = wordDiff(
          (lines[i + k] as string).slice(1),
          (lines[i + dels + k] as string).slice(1),
        );
        out.push(html`<span class="d-del">-${before}</span>`);
        added.push(html`<span class="d-add">+${after}</span>`);
      }
      out.push(...added);
      i += 2 * dels;
      continue;
    }
    const line = lines[i] as string;
    out.push(html`<span class="d-${kinds[i]}">${line === "" ? " " : line}</span>`);
    i++;
  }
  return html`<pre class="diff">${out}</pre>`;
}

/** The two sides of an edited line with the changed words marked. */
function wordDiff(before: string, after: string): [Html, Html] {
  const parts = diffWordsWithSpace(before, after);
  const left = parts
    .filter((p) => !p.added)
    .map((p) => (p.removed ? html`<del>${p.value}</del>` : html`${p.value}`));
  const right = parts
    .filter((p) => !p.removed)
    .map((p) => (p.added ? html`<ins>${p.value}</ins>` : html`${p.value}`));
  return [html`${left}`, html`${right}`];
}

/** The one-line summaries of a change, above its diff. */
export function renderChangeSummary(change: { summary: readonly string[] }): Html {
  if (change.summary.length === 0) return html``;
  return html`<ul class="change-summary mono">${change.summary.map((line) => html`<li>${line}</li>`)}</ul>`;
}
