import { stripVTControlCharacters } from "node:util";

export interface TableOptions {
  /** Fit every line into this many columns by cutting the flexible column (the terminal's width; none: full). */
  maxWidth?: number;
  /** The column cut to fit (default: the last one, a rationale or reason). */
  flexColumn?: number;
}

const GAP = 2;
const MIN_FLEX = 12;

/** Width as the terminal shows it: colour codes take no room. */
const visible = (text: string) => [...stripVTControlCharacters(text)].length;

function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** A plain text table: columns padded to their widest cell, numbers right-aligned, fitted to a width if given. */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  options: TableOptions = {},
): string {
  const flex = options.flexColumn ?? header.length - 1;
  const width = (column: number, cells: ReadonlyArray<readonly string[]>) =>
    Math.max(header[column]?.length ?? 0, ...cells.map((row) => visible(row[column] ?? "")));
  let body = rows.map((row) => row.map((cell) => cell.replace(/\s+/g, " ")));
  if (options.maxWidth !== undefined) {
    const others = header.reduce(
      (sum, _, column) => (column === flex ? sum : sum + width(column, body) + GAP),
      0,
    );
    const room = Math.max(MIN_FLEX, options.maxWidth - others);
    body = body.map((row) => row.map((cell, column) => (column === flex ? cut(cell, room) : cell)));
  }
  const widths = header.map((_, column) => width(column, body));
  const numeric = header.map(
    (_, column) =>
      body.length > 0 &&
      body.every((row) => /^[-+]?[\d.]+%?$|^-$/.test(stripVTControlCharacters(row[column] ?? ""))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => {
        const pad = (widths[column] ?? 0) - visible(cell);
        return numeric[column] ? " ".repeat(Math.max(0, pad)) + cell : cell + " ".repeat(Math.max(0, pad));
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** A rate in [0, 1] as a fixed 3-decimal string; "-" when undefined. */
export function fmtRate(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? "-" : value.toFixed(3);
}

/** ANSI colour for a terminal, or plain text: on only when stdout is a TTY, NO_COLOR is unset and no --no-color. */
export interface Paint {
  good(text: string): string;
  bad(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export function paintFor(
  io: { outTTY?: boolean; env: NodeJS.ProcessEnv },
  color: boolean | undefined,
): Paint {
  const on = color !== false && io.outTTY === true && !io.env.NO_COLOR;
  const wrap = (code: string) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { good: wrap("32"), bad: wrap("31"), dim: wrap("2"), bold: wrap("1") };
}
