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

/** A unified diff, escaped, one coloured block per line. */
export function renderDiff(text: string): Html {
  const lines = text.replace(/\n$/, "").split("\n");
  if (text.trim() === "") return html`<p class="muted">(no changes)</p>`;
  return html`<pre class="diff">${lines.map((line) => {
    const kind = classifyDiffLine(line);
    return html`<span class="d-${kind}">${line === "" ? " " : line}</span>`;
  })}</pre>`;
}
