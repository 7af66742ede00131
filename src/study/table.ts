import type { BlockedEpisodeScore, FeasibleEpisodeScore } from "../scoring";
import type { RolloutRecord } from "../store/types";
/**
 * A study table as data (rows of cells, rates with their counts) and its one renderer to Markdown, CSV and LaTeX.
 * The report's tables and its figures' data are all of this shape, so every format shows the same numbers.
 */

/** A rate with the counts it comes from; `k/n` exactly, `n` 0 when there was nothing to count. */
export interface CountCell {
  k: number;
  n: number;
}

/** An estimate with its interval (and why there is none). */
export interface EstimateCell {
  value: number | null;
  ci: [number, number] | null;
  /** Why the value or its interval is undefined. */
  reason?: string;
}

export interface MeanSdCell {
  mean: number | null;
  sd: number | null;
}

export type Cell = string | number | null | CountCell | EstimateCell | MeanSdCell;

export interface StudyTable {
  /** File name of its renderings: `table-11-retail`. */
  id: string;
  /** The study's number: `Table 11`, `Figure 4`. */
  number: string;
  title: string;
  benchmark: string;
  /** Whose outcomes these are: a model, or the simulator (never presented as a model). */
  source: string;
  columns: Array<{ key: string; label: string }>;
  rows: Array<Record<string, Cell>>;
  notes: string[];
  /** The paper's published values beside this table, or a plain statement that they are not shipped. */
  reference: string;
}

function isCount(cell: Cell): cell is CountCell {
  return typeof cell === "object" && cell !== null && "k" in cell && "n" in cell;
}

function isEstimate(cell: Cell): cell is EstimateCell {
  return typeof cell === "object" && cell !== null && "value" in cell && "ci" in cell;
}

const fixed = (value: number) => value.toFixed(3);

/** One cell as text, the same in every format. */
/** Makes one table of a benchmark, with the published values beside it (tables.ts's tableMaker). */
export type TableMaker = (
  key: string,
  number: string,
  title: string,
  columns: Array<[string, string]>,
  rows: Array<Record<string, Cell>>,
  notes?: string[],
) => StudyTable;

/** k of n: the items for which `predicate` holds. */
export function count<T>(items: readonly T[], predicate: (item: T) => boolean): CountCell {
  return { k: items.filter(predicate).length, n: items.length };
}

/** The scores of a step's blocked episodes. */
export function blockedOf(rollouts: readonly RolloutRecord[]): BlockedEpisodeScore[] {
  return rollouts.flatMap((r) => (r.scores.kind === "blocked" ? [r.scores as BlockedEpisodeScore] : []));
}

/** The scores of a step's feasible episodes. */
export function feasibleOf(rollouts: readonly RolloutRecord[]): FeasibleEpisodeScore[] {
  return rollouts.flatMap((r) => (r.scores.kind === "feasible" ? [r.scores as FeasibleEpisodeScore] : []));
}

export function cellText(cell: Cell): string {
  if (cell === null) return "–";
  if (typeof cell === "string") return cell;
  if (typeof cell === "number") return Number.isInteger(cell) ? String(cell) : fixed(cell);
  if (isCount(cell)) return cell.n === 0 ? "– (0/0)" : `${fixed(cell.k / cell.n)} (${cell.k}/${cell.n})`;
  if (isEstimate(cell)) {
    if (cell.value === null) return `undefined (${cell.reason ?? "no support"})`;
    const ci = cell.ci ? ` [${fixed(cell.ci[0])}, ${fixed(cell.ci[1])}]` : ` (no CI: ${cell.reason ?? "–"})`;
    return `${fixed(cell.value)}${ci}`;
  }
  if (cell.mean === null) return "–";
  return cell.sd === null ? fixed(cell.mean) : `${fixed(cell.mean)} ± ${fixed(cell.sd)}`;
}

function cells(table: StudyTable): string[][] {
  return table.rows.map((row) => table.columns.map((column) => cellText(row[column.key] ?? null)));
}

export function tableMarkdown(table: StudyTable): string {
  const cellEscape = (text: string) => text.replaceAll("|", "\\|");
  const lines = [
    `### ${table.number} — ${table.title} (${table.benchmark})`,
    "",
    `Outcomes of ${table.source}.`,
    "",
    `| ${table.columns.map((c) => cellEscape(c.label)).join(" | ")} |`,
    `| ${table.columns.map(() => "---").join(" | ")} |`,
    ...cells(table).map((row) => `| ${row.map(cellEscape).join(" | ")} |`),
    "",
    ...table.notes.map((note) => `- ${note}`),
    `- Paper's value: ${table.reference}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Counts in columns of their own (`<key>_k`, `<key>_n`), so a spreadsheet reads numbers, not text. */
export function tableCsv(table: StudyTable): string {
  const header: string[] = [];
  for (const column of table.columns) {
    const sample = table.rows.map((row) => row[column.key] ?? null).find((cell) => cell !== null);
    if (sample !== undefined && isCount(sample))
      header.push(column.label, `${column.label} k`, `${column.label} n`);
    else header.push(column.label);
  }
  const lines = [header.map(csvField).join(",")];
  for (const row of table.rows) {
    const fields: string[] = [];
    for (const column of table.columns) {
      const sample = table.rows.map((r) => r[column.key] ?? null).find((cell) => cell !== null);
      const cell = row[column.key] ?? null;
      if (sample !== undefined && isCount(sample)) {
        if (cell !== null && isCount(cell))
          fields.push(cell.n === 0 ? "" : String(cell.k / cell.n), String(cell.k), String(cell.n));
        else fields.push("", "", "");
      } else fields.push(cellText(cell));
    }
    lines.push(fields.map(csvField).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

const LATEX_SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};

function latexText(text: string): string {
  return text
    .replace(/[\\&%$#_{}~^]/g, (char) => LATEX_SPECIAL[char] ?? char)
    .replaceAll("±", "$\\pm$")
    .replaceAll("−", "$-$")
    .replaceAll("–", "--");
}

export function tableLatex(table: StudyTable): string {
  const lines = [
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{${latexText(`${table.title} (${table.benchmark}); outcomes of ${table.source}`)}}`,
    `\\label{tab:${table.id}}`,
    `\\begin{tabular}{${table.columns.map((_, i) => (i === 0 ? "l" : "r")).join("")}}`,
    "\\hline",
    `${table.columns.map((c) => latexText(c.label)).join(" & ")} \\\\`,
    "\\hline",
    ...cells(table).map((row) => `${row.map(latexText).join(" & ")} \\\\`),
    "\\hline",
    "\\end{tabular}",
    "\\end{table}",
  ];
  return `${lines.join("\n")}\n`;
}
