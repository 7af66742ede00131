import { readFileSync } from "node:fs";
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { HsearchError } from "../core/errors";

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

export function parsePositioned(text: string, file: string): PositionedDocument {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    throw new HsearchError(
      "bad_input",
      `malformed ${describeFormat(file)}: ${first.message.split("\n")[0]}`,
      {
        file,
        ...(line ? { line } : {}),
      },
    );
  }
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
  return { file, value: doc.toJS({ maxAliasCount: 100 }), lineOf };
}

function describeFormat(file: string): string {
  return file.endsWith(".json") ? "JSON" : "YAML";
}

export function readPositioned(file: string): PositionedDocument {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HsearchError(code === "ENOENT" ? "not_found" : "bad_input", `cannot read: ${code ?? error}`, {
      file,
      cause: error,
    });
  }
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
