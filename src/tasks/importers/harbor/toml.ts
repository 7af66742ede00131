/**
 * A small, strict TOML reader for Harbor's task.toml (no TOML library is installed). It covers what task files use:
 * comments; [tables], [dotted.tables] and [[arrays.of.tables]]; bare, quoted and dotted keys; basic, literal and
 * multi-line strings; integers, floats, booleans; arrays (over several lines) and inline tables. Anything else —
 * dates, duplicate keys, a value it cannot read — is an error naming the file and the line, never a guess.
 */
import { badInput } from "../../../core";

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export function parseToml(text: string, file: string): TomlTable {
  return new TomlReader(text, file).document();
}

const BARE_KEY = /[A-Za-z0-9_-]/;

class TomlReader {
  private at = 0;
  private readonly root: TomlTable = {};
  /** Tables defined by a [header] (a second header for the same table is an error). */
  private readonly defined = new Set<TomlTable>();

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  document(): TomlTable {
    let table = this.root;
    for (;;) {
      this.skipBlankLines();
      if (this.at >= this.text.length) return this.root;
      if (this.peek() === "[") table = this.header();
      else {
        this.keyValue(table);
        this.endOfLine();
      }
    }
  }

  private fail(message: string, at = this.at): never {
    const line = this.text.slice(0, at).split("\n").length;
    throw badInput(`TOML: ${message}`, { file: this.file, line });
  }

  private peek(offset = 0): string {
    return this.text[this.at + offset] ?? "";
  }

  private skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.at++;
  }

  private skipComment(): void {
    if (this.peek() !== "#") return;
    while (this.at < this.text.length && this.peek() !== "\n") this.at++;
  }

  private skipBlankLines(): void {
    for (;;) {
      this.skipSpaces();
      this.skipComment();
      if (this.peek() === "\n" || this.peek() === "\r") this.at++;
      else return;
    }
  }

  /** Spaces, comments and newlines inside arrays. */
  private skipWhitespaceAndNewlines(): void {
    this.skipBlankLines();
  }

  private endOfLine(): void {
    this.skipSpaces();
    this.skipComment();
    if (this.peek() === "\r") this.at++;
    if (this.at < this.text.length && this.peek() !== "\n")
      this.fail(`unexpected '${this.peek()}' after a value`);
  }

  private header(): TomlTable {
    const array = this.text.startsWith("[[", this.at);
    this.at += array ? 2 : 1;
    this.skipSpaces();
    const path = this.keyPath();
    this.skipSpaces();
    const close = array ? "]]" : "]";
    if (!this.text.startsWith(close, this.at)) this.fail(`expected '${close}' to close the table header`);
    this.at += close.length;
    this.endOfLine();
    const parent = this.descend(this.root, path.slice(0, -1));
    const last = path[path.length - 1] as string;
    if (array) {
      const existing = parent[last];
      const list = existing === undefined ? [] : existing;
      if (!Array.isArray(list)) this.fail(`'${path.join(".")}' is already a value, not an array of tables`);
      const table: TomlTable = {};
      list.push(table);
      parent[last] = list;
      return table;
    }
    const existing = parent[last];
    if (existing !== undefined && !isTable(existing)) this.fail(`'${path.join(".")}' is already a value`);
    const table = existing ?? {};
    if (this.defined.has(table)) this.fail(`table [${path.join(".")}] is defined twice`);
    this.defined.add(table);
    parent[last] = table;
    return table;
  }

  /** Walk (creating) the tables of a dotted path; an array of tables continues at its last element. */
  private descend(from: TomlTable, path: readonly string[]): TomlTable {
    let table = from;
    for (const key of path) {
      const next = table[key];
      if (next === undefined) {
        const created: TomlTable = {};
        table[key] = created;
        table = created;
      } else if (Array.isArray(next) && isTable(next[next.length - 1]))
        table = next[next.length - 1] as TomlTable;
      else if (isTable(next)) table = next;
      else this.fail(`'${key}' is a value, not a table`);
    }
    return table;
  }

  private keyPath(): string[] {
    const path = [this.key()];
    for (;;) {
      this.skipSpaces();
      if (this.peek() !== ".") return path;
      this.at++;
      this.skipSpaces();
      path.push(this.key());
    }
  }

  private key(): string {
    const char = this.peek();
    if (char === '"') return this.basicString();
    if (char === "'") return this.literalString();
    const start = this.at;
    while (BARE_KEY.test(this.peek())) this.at++;
    if (this.at === start)
      this.fail(char === "" ? "expected a key" : `unexpected '${char}' where a key should be`);
    return this.text.slice(start, this.at);
  }

  private keyValue(table: TomlTable): void {
    const start = this.at;
    const path = this.keyPath();
    this.skipSpaces();
    if (this.peek() !== "=") this.fail(`expected '=' after the key '${path.join(".")}'`);
    this.at++;
    this.skipSpaces();
    const value = this.value();
    const target = this.descend(table, path.slice(0, -1));
    const last = path[path.length - 1] as string;
    if (target[last] !== undefined) this.fail(`duplicate key '${path.join(".")}'`, start);
    target[last] = value;
  }

  private value(): TomlValue {
    const char = this.peek();
    if (this.text.startsWith('"""', this.at)) return this.multiLine('"""');
    if (this.text.startsWith("'''", this.at)) return this.multiLine("'''");
    if (char === '"') return this.basicString();
    if (char === "'") return this.literalString();
    if (char === "[") return this.array();
    if (char === "{") return this.inlineTable();
    if (this.text.startsWith("true", this.at) && !BARE_KEY.test(this.peek(4))) {
      this.at += 4;
      return true;
    }
    if (this.text.startsWith("false", this.at) && !BARE_KEY.test(this.peek(5))) {
      this.at += 5;
      return false;
    }
    return this.number();
  }

  private number(): number {
    const start = this.at;
    while (/[0-9A-Za-z_.+:-]/.test(this.peek())) this.at++;
    const raw = this.text.slice(start, this.at);
    if (raw === "") this.fail(`expected a value, found '${this.peek() || "end of file"}'`);
    if (/^\d{4}-\d{2}-\d{2}/.test(raw) || raw.includes(":"))
      this.fail(`dates and times are not supported ('${raw}')`, start);
    const integer = /^[+-]?(0|[1-9](_?\d)*)$/;
    const float = /^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/;
    if (integer.test(raw) || float.test(raw)) return Number(raw.replace(/_/g, ""));
    if (/^[+-]?(inf|nan)$/.test(raw))
      return raw.endsWith("nan") ? Number.NaN : raw.startsWith("-") ? -Infinity : Infinity;
    return this.fail(`'${raw}' is not a value this reader understands`, start);
  }

  private basicString(): string {
    this.at++;
    let out = "";
    for (;;) {
      const char = this.peek();
      if (char === "" || char === "\n") this.fail("unterminated string");
      this.at++;
      if (char === '"') return out;
      out += char === "\\" ? this.escape() : char;
    }
  }

  private escape(): string {
    const char = this.peek();
    this.at++;
    const simple: Record<string, string> = {
      b: "\b",
      t: "\t",
      n: "\n",
      f: "\f",
      r: "\r",
      '"': '"',
      "\\": "\\",
    };
    if (simple[char] !== undefined) return simple[char];
    if (char === "u" || char === "U") {
      const length = char === "u" ? 4 : 8;
      const hex = this.text.slice(this.at, this.at + length);
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex))
        this.fail(`bad unicode escape '\\${char}${hex}'`);
      this.at += length;
      return String.fromCodePoint(Number.parseInt(hex, 16));
    }
    return this.fail(`unknown escape '\\${char}'`);
  }

  private literalString(): string {
    const end = this.text.indexOf("'", this.at + 1);
    const newline = this.text.indexOf("\n", this.at + 1);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail("unterminated string");
    const out = this.text.slice(this.at + 1, end);
    this.at = end + 1;
    return out;
  }

  private multiLine(quote: '"""' | "'''"): string {
    this.at += 3;
    // A newline right after the opening quotes is not part of the string.
    if (this.peek() === "\r" && this.peek(1) === "\n") this.at += 2;
    else if (this.peek() === "\n") this.at++;
    let out = "";
    for (;;) {
      if (this.at >= this.text.length) this.fail("unterminated multi-line string");
      if (this.text.startsWith(quote, this.at)) {
        this.at += 3;
        return out;
      }
      const char = this.peek();
      this.at++;
      if (quote === '"""' && char === "\\") {
        if (/[ \t\r\n]/.test(this.peek())) {
          // A line-ending backslash trims the newline and the whitespace after it.
          while (/[ \t\r\n]/.test(this.peek())) this.at++;
        } else out += this.escape();
      } else out += char;
    }
  }

  private array(): TomlValue[] {
    this.at++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipWhitespaceAndNewlines();
      if (this.peek() === "]") {
        this.at++;
        return items;
      }
      items.push(this.value());
      this.skipWhitespaceAndNewlines();
      if (this.peek() === ",") this.at++;
      else if (this.peek() !== "]")
        this.fail(`expected ',' or ']' in an array, found '${this.peek() || "end of file"}'`);
    }
  }

  private inlineTable(): TomlTable {
    this.at++;
    const table: TomlTable = {};
    this.skipSpaces();
    if (this.peek() === "}") {
      this.at++;
      return table;
    }
    for (;;) {
      this.skipSpaces();
      this.keyValue(table);
      this.skipSpaces();
      if (this.peek() === "}") {
        this.at++;
        return table;
      }
      if (this.peek() !== ",")
        this.fail(`expected ',' or '}' in an inline table, found '${this.peek() || "end of file"}'`);
      this.at++;
    }
  }
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return value !== undefined && typeof value === "object" && !Array.isArray(value);
}
