import {
  type Document,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  LineCounter,
  parseDocument,
} from "yaml";
import type { z } from "zod";
import { HsearchError, readRegularFile } from "../core";

/**
 * YAML (and JSON, which is YAML) parsed with positions, and zod validation whose errors name the file, the field
 * and the line of the offending value.
 */
export interface PositionedDocument {
  file: string;
  value: unknown;
  /** The 1-based line of the value at `path`, or of its nearest existing parent. */
  lineOf(path: ReadonlyArray<PropertyKey>): number | undefined;
}

/**
 * Resource limits on every parsed document, so a hostile file (an alias bomb, a megabyte of brackets) is a bad-input
 * error naming the file rather than a hang, an out-of-memory or a stack overflow. Real configs, harnesses and tasks
 * are far inside them.
 */
export const DOCUMENT_LIMITS = {
  /** Bytes of text. */
  maxBytes: 8 * 1024 * 1024,
  /** Nesting of maps and sequences. */
  maxDepth: 64,
  /** Alias expansions while building the value (the yaml library's own guard, reported as bad input). */
  maxAliasCount: 100,
} as const;

export function parsePositioned(text: string, file: string): PositionedDocument {
  const format = describeFormat(file);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > DOCUMENT_LIMITS.maxBytes)
    throw new HsearchError(
      "bad_input",
      `${format} document of ${bytes} bytes is over the limit of ${DOCUMENT_LIMITS.maxBytes} bytes`,
      { file },
    );
  if (format === "JSON") {
    const value = plainJson(text, file);
    // Positions are only needed for an error: the YAML parse that knows them runs then.
    if (value !== undefined)
      return { file, value: value.parsed, lineOf: (path) => parseYaml(text, file, format).lineOf(path) };
  }
  return parseYaml(text, file, format);
}

/**
 * A JSON document the YAML parser would read to the same value without complaint, read by JSON.parse (about fifty
 * times faster: task suites are hundreds of JSON files). Undefined when it is not such a document — not JSON, a
 * key repeated in an object (an error for the YAML parser, the last one wins for JSON.parse) — so the YAML path
 * reports it as before. JSON nested deeper than the limit is refused here, naming the line.
 */
function plainJson(text: string, file: string): { parsed: unknown } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Valid JSON from here: strings, structure and whitespace only need telling apart.
  const keysAt: Array<Set<string> | null> = [];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      keysAt.push(char === 0x7b ? new Set() : null);
      // As deep as the YAML parser's check counts; that parser is not asked, as it can run out of memory on such a
      // document in a flow collection instead of overflowing its stack.
      if (keysAt.length > DOCUMENT_LIMITS.maxDepth)
        throw new HsearchError(
          "bad_input",
          `malformed JSON: nested deeper than the limit of ${DOCUMENT_LIMITS.maxDepth} levels`,
          { file, line: lineAt(text, i) },
        );
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) keysAt.pop();
    else if (char === 0x22 /* " */) {
      const start = i;
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
      const keys = keysAt.at(-1);
      if (!keys) continue;
      let next = i + 1;
      while (/\s/.test(text.charAt(next))) next++;
      if (text.charAt(next) !== ":") continue;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (keys.has(key)) return undefined;
      keys.add(key);
    }
  }
  return { parsed };
}

/** The 1-based line of the character at `index`. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

function parseYaml(text: string, file: string, format: string): PositionedDocument {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    // The parser recurses per nesting level; a stack overflow is the depth limit, reached before our own check.
    const message = /call stack/i.test(first.message)
      ? `nested deeper than the limit of ${DOCUMENT_LIMITS.maxDepth} levels`
      : first.message.split("\n")[0];
    throw new HsearchError("bad_input", `malformed ${format}: ${message}`, {
      file,
      ...(line ? { line } : {}),
    });
  }
  const deep = deepestNode(doc);
  if (deep)
    throw new HsearchError(
      "bad_input",
      `malformed ${format}: nested deeper than the limit of ${DOCUMENT_LIMITS.maxDepth} levels`,
      { file, ...(deep.range?.[0] !== undefined ? { line: lineCounter.linePos(deep.range[0]).line } : {}) },
    );
  const lineOf = (path: ReadonlyArray<PropertyKey>): number | undefined => {
    for (let depth = path.length; depth >= 0; depth--) {
      const prefix = path.slice(0, depth) as unknown[];
      const node = doc.getIn(prefix, true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      // A key whose value is missing or unknown: the key's own position.
      const parent = doc.getIn(prefix.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === prefix.at(-1));
        if (pair && isNode(pair.key) && pair.key.range) return lineCounter.linePos(pair.key.range[0]).line;
      }
    }
    return undefined;
  };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: DOCUMENT_LIMITS.maxAliasCount });
  } catch (error) {
    // The yaml library throws a ReferenceError when aliases expand past maxAliasCount (a "billion laughs" document).
    if (!(error instanceof ReferenceError)) throw error;
    throw new HsearchError(
      "bad_input",
      `malformed ${format}: aliases expand past the limit of ${DOCUMENT_LIMITS.maxAliasCount} (${error.message})`,
      { file, cause: error },
    );
  }
  return { file, value, lineOf };
}

/** The first node nested deeper than the limit, walked without recursion; null when the document is within it. */
function deepestNode(doc: Document): { range?: readonly number[] | null } | null {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: doc.contents, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (!isCollection(node)) continue;
    if (depth >= DOCUMENT_LIMITS.maxDepth) return node;
    for (const item of node.items as unknown[]) {
      if (isPair(item)) {
        stack.push({ node: item.key, depth: depth + 1 });
        stack.push({ node: item.value, depth: depth + 1 });
      } else stack.push({ node: item, depth: depth + 1 });
    }
  }
  return null;
}

function describeFormat(file: string): string {
  return file.endsWith(".json") ? "JSON" : "YAML";
}

export function readPositioned(file: string): PositionedDocument {
  const text = readRegularFile(file, DOCUMENT_LIMITS.maxBytes);
  return parsePositioned(text, file);
}

/** Validate a parsed document; the first issue becomes an error naming file, field and line. */
export function validateDocument<S extends z.ZodType>(schema: S, doc: PositionedDocument): z.output<S> {
  const result = schema.safeParse(doc.value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new HsearchError("bad_input", "invalid document", { file: doc.file });
  // zod reports unknown keys on the parent object; point at the key itself.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  const field = path.map(String).join(".");
  const line = doc.lineOf(path);
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : "";
  throw new HsearchError("bad_input", `${issue.message}${more}`, {
    file: doc.file,
    ...(field ? { field } : {}),
    ...(line ? { line } : {}),
  });
}

export function loadDocument<S extends z.ZodType>(schema: S, file: string): z.output<S> {
  return validateDocument(schema, readPositioned(file));
}
