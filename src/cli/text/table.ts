import { stripVTControlCharacters } from "node:util";

/**
 * Plain-text tables and lines fitted to the terminal. With a width (stdout's columns on a terminal) every line fits
 * it: a table's flexible column (a rationale) is cut with …, its other cells are wrapped inside their column, and a
 * line of prose is wrapped at spaces with a hanging indent. Without one (piped output) everything is printed in full.
 */
export interface TableOptions {
  /** Fit every line into this many columns (the terminal's width; none: full). */
  maxWidth?: number;
  /** The column cut to fit (default: the last one, a rationale or reason); null: none, every cell wraps. */
  flexColumn?: number | null;
}

const GAP = 2;
const MIN_FLEX = 12;

/** Width as the terminal shows it: colour codes take no room. */
export const visible = (text: string) => [...stripVTControlCharacters(text)].length;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ESCAPE = /\x1b\[[0-9;]*m/y;
const RESET = "\x1b[0m";

/** The text as pieces: each escape sequence whole (no width), each other character apart (width 1). */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    ESCAPE.lastIndex = at;
    const sequence = ESCAPE.exec(text);
    if (sequence) {
      out.push(sequence[0]);
      at += sequence[0].length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(at) as number);
    out.push(char);
    at += char.length;
  }
  return out;
}

const isEscape = (piece: string) => piece.startsWith("\x1b");

/** The first `width` visible characters, the last of them … when the text is longer. */
function cut(text: string, width: number): string {
  if (visible(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const piece of pieces(text)) {
    if (isEscape(piece)) out += piece;
    else if (used < width - 1) {
      out += piece;
      used += 1;
    }
  }
  return closeColours([`${out}…`])[0] as string;
}

/** A word in pieces of `width` visible characters (the last one shorter). */
function breakWord(word: string, width: number): string[] {
  const out: string[] = [""];
  let used = 0;
  for (const piece of pieces(word)) {
    if (!isEscape(piece) && used === width) {
      out.push("");
      used = 0;
    }
    out[out.length - 1] += piece;
    if (!isEscape(piece)) used += 1;
  }
  return out;
}

/**
 * Each line closes the colours it leaves open and the next one opens them again, so a colour never runs into the
 * cells beside a wrapped cell, nor into an indent.
 */
function closeColours(lines: string[]): string[] {
  let open = "";
  return lines.map((line) => {
    let text = open + line;
    for (const piece of pieces(line))
      if (isEscape(piece)) open = piece === RESET || piece === "\x1b[m" ? "" : open + piece;
    if (open !== "") text += RESET;
    return text;
  });
}

/**
 * One line wrapped at spaces into lines of at most `width` visible characters; lines after the first start with
 * `indent` (counted in the width). A word longer than a line is broken (`long: "break"`, nothing lost) or cut with …
 * (`long: "cut"`, a table cell). Colours stay on their text.
 */
export function wrapLine(
  text: string,
  width: number,
  options: { indent?: string; long?: "break" | "cut" } = {},
): string[] {
  if (visible(text) <= width) return [text];
  // A line's own leading spaces (an indented usage line) stay on each of its lines.
  const lead = /^ +/.exec(text)?.[0] ?? "";
  if (lead !== "" && lead.length < width - 1)
    return wrapLine(text.slice(lead.length), width - lead.length, options).map((line) => lead + line);
  const indent = options.indent ?? "";
  const room = (lineIndex: number) => Math.max(1, width - (lineIndex === 0 ? 0 : visible(indent)));
  const lines: string[] = [];
  let current = "";
  let used = 0;
  const push = () => {
    lines.push(current);
    current = "";
    used = 0;
  };
  const queue = units(text.split(" "));
  while (queue.length > 0) {
    const word = queue.shift() as string;
    const size = visible(word);
    // A bracketed unit ("[0.65, 0.85]") stays on one line when a line can hold it; otherwise its words go apart.
    if (size > room(lines.length) && word.includes(" ")) {
      queue.unshift(...word.split(" "));
      continue;
    }
    if (used > 0 && used + 1 + size <= room(lines.length)) {
      current += ` ${word}`;
      used += 1 + size;
      continue;
    }
    if (used > 0) push();
    if (size <= room(lines.length)) {
      current = word;
      used = size;
    } else if (options.long === "cut") {
      current = cut(word, room(lines.length));
      used = room(lines.length);
    } else {
      const parts = breakWord(word, room(lines.length));
      for (const part of parts.slice(0, -1)) {
        current = part;
        push();
      }
      current = parts.at(-1) ?? "";
      used = visible(current);
    }
  }
  if (used > 0 || lines.length === 0) push();
  return closeColours(lines).map((line, index) => (index === 0 ? line : indent + line));
}

/** Words, with a bracketed group of them ("[0.65, 0.85]", "(0/12 scored)") joined into one unit. */
function units(words: readonly string[]): string[] {
  const out: string[] = [];
  let open: string[] | null = null;
  for (const word of words) {
    const plain = stripVTControlCharacters(word);
    if (open) {
      open.push(word);
      if (/[\])]$/.test(plain)) {
        out.push(open.join(" "));
        open = null;
      }
    } else if (/^[[(]/.test(plain) && !/[\])]$/.test(plain)) open = [word];
    else out.push(word);
  }
  if (open) out.push(...open);
  return out;
}

/** Every line of `text` fitted to `width` (wrapped with `indent`); the text as it is without a width. */
export function fitLines(text: string, width: number | undefined, indent = "  "): string {
  if (width === undefined) return text;
  return text
    .split("\n")
    .flatMap((line) => wrapLine(line, width, { indent }))
    .join("\n");
}

/** The longest word of a cell: its column cannot get narrower without cutting it. */
const longestWord = (text: string) => Math.max(1, ...text.split(" ").map(visible));

/**
 * Column widths whose sum fits `room`: the flexible column first gives way down to MIN_FLEX, then the widest other
 * column, one character at a time, down to its longest word (its cells wrap); only then do cells get cut.
 */
function fitWidths(natural: number[], longest: number[], flex: number, room: number): number[] {
  const widths = [...natural];
  const total = () => widths.reduce((sum, width) => sum + width, 0);
  const shrinkWidest = (floorOf: (column: number) => number): boolean => {
    let widest = -1;
    for (let column = 0; column < widths.length; column++) {
      if (column === flex || (widths[column] as number) <= floorOf(column)) continue;
      if (widest < 0 || (widths[column] as number) > (widths[widest] as number)) widest = column;
    }
    if (widest < 0) return false;
    widths[widest] = (widths[widest] as number) - 1;
    return true;
  };
  const hasFlex = flex >= 0 && flex < widths.length;
  if (hasFlex) {
    const flexFloor = Math.min(natural[flex] ?? 0, MIN_FLEX);
    widths[flex] = Math.max(flexFloor, (widths[flex] as number) - (total() - room));
  }
  while (total() > room && shrinkWidest((column) => longest[column] as number));
  if (hasFlex && total() > room) widths[flex] = Math.max(1, (widths[flex] as number) - (total() - room));
  while (total() > room && shrinkWidest(() => 1));
  return widths;
}

/**
 * A plain text table: columns padded to their widest cell, numbers right-aligned. With `maxWidth` every line fits
 * it: the flexible column is cut with …, other cells (the header's too) wrap inside their column.
 */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  options: TableOptions = {},
): string {
  const flex = options.flexColumn === null ? -1 : (options.flexColumn ?? header.length - 1);
  const body = rows.map((row) => header.map((_, column) => (row[column] ?? "").replace(/\s+/g, " ")));
  const all = [[...header], ...body];
  const natural = header.map((_, column) => Math.max(...all.map((row) => visible(row[column] as string))));
  const longest = header.map((_, column) =>
    Math.max(...all.map((row) => longestWord(row[column] as string))),
  );
  const gaps = GAP * (header.length - 1);
  const widths =
    options.maxWidth === undefined || natural.reduce((a, b) => a + b, 0) + gaps <= options.maxWidth
      ? natural
      : fitWidths(natural, longest, flex, options.maxWidth - gaps);
  const numeric = header.map(
    (_, column) =>
      body.length > 0 &&
      body.every((row) => /^[-+]?[\d.]+%?$|^-$/.test(stripVTControlCharacters(row[column] ?? ""))),
  );
  const cellLines = (cell: string, column: number): string[] => {
    const width = widths[column] as number;
    if (visible(cell) <= width) return [cell];
    return column === flex ? [cut(cell, width)] : wrapLine(cell, width, { long: "cut" });
  };
  const lines = (row: readonly string[]): string[] => {
    const cells = row.map(cellLines);
    const height = Math.max(...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, index) =>
      cells
        .map((c, column) => {
          const cell = c[index] ?? "";
          const pad = Math.max(0, (widths[column] as number) - visible(cell));
          return numeric[column] ? " ".repeat(pad) + cell : cell + " ".repeat(pad);
        })
        .join(" ".repeat(GAP))
        .trimEnd(),
    );
  };
  return [
    ...lines(header),
    widths.map((w) => "-".repeat(w)).join(" ".repeat(GAP)),
    ...body.flatMap(lines),
  ].join("\n");
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
