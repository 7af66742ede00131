/**
 * A zod schema as a Markdown table of fields: one row per dotted path (`a.b`, `list[].field`, `map.<key>`), with
 * its type, default and description, read from the schema's JSON Schema (zod's own `toJSONSchema`, the form
 * editors read too), in the schema's declaration order.
 */
import { z } from "zod";

interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
}

export interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  default: string;
  description: string;
}

/** The rows of a schema, objects first as their own row (when they are described) and then their fields. */
export function schemaRows(schema: z.core.$ZodType): FieldRow[] {
  const root = z.toJSONSchema(schema, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const resolve = (node: JsonSchema): JsonSchema => {
    const name = node.$ref?.replace(/^#\/\$defs\//, "");
    return name !== undefined ? { ...resolve(root.$defs?.[name] ?? {}), ...withoutRef(node) } : node;
  };
  const rows: FieldRow[] = [];
  const walk = (node: JsonSchema, path: string, required: boolean) => {
    const here = resolve(node);
    const variants = (here.anyOf ?? here.oneOf ?? [here]).map(resolve);
    const objects = variants.filter((v) => v.properties !== undefined || isRecord(v));
    const arrays = variants.filter((v) => v.items !== undefined && resolve(v.items).properties !== undefined);
    const keys = variants.map(sharedShape).some(Boolean)
      ? ` Keys: ${variants.flatMap((v) => (sharedShape(v) ? Object.keys(v.properties ?? {}) : [])).join(", ")}.`
      : "";
    if (path)
      rows.push({
        path,
        type: variants.map(typeOf).join(" or "),
        required,
        default: here.default === undefined ? "" : JSON.stringify(here.default),
        description: (here.description ?? variants.find((v) => v.description)?.description ?? "") + keys,
      });
    for (const object of objects) {
      const shared = sharedShape(object);
      if (shared) walk(shared, join(path, "<key>"), false);
      else
        for (const [key, child] of Object.entries(object.properties ?? {}))
          walk(child, join(path, key), object.required?.includes(key) ?? false);
      if (isRecord(object)) walk(object.additionalProperties as JsonSchema, join(path, "<key>"), false);
    }
    for (const array of arrays) walk(array.items as JsonSchema, `${path}[]`, true);
  };
  const top = resolve(root);
  if (top.items && !top.properties) walk(top.items, "[]", true);
  else walk(top, "", true);
  return dedupe(rows);
}

/**
 * The one schema every key of an object shares (the per-role blocks of `models`), so its fields are documented
 * once under `<key>` instead of once per key.
 */
function sharedShape(node: JsonSchema): JsonSchema | undefined {
  const values = Object.values(node.properties ?? {});
  if (values.length < 2 || values.some((v) => v.properties === undefined)) return undefined;
  const first = JSON.stringify(values[0]);
  return values.every((v) => JSON.stringify(v) === first) ? values[0] : undefined;
}

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

const withoutRef = ({ $ref: _ref, ...rest }: JsonSchema) => rest;

const isRecord = (node: JsonSchema) =>
  typeof node.additionalProperties === "object" && node.properties === undefined;

/** A path reached through two variants (two object forms of one field) is one row, its types joined. */
function dedupe(rows: FieldRow[]): FieldRow[] {
  const byPath = new Map<string, FieldRow>();
  for (const row of rows) {
    const seen = byPath.get(row.path);
    if (!seen) byPath.set(row.path, row);
    else if (!seen.type.split(" or ").includes(row.type)) seen.type = `${seen.type} or ${row.type}`;
  }
  return [...byPath.values()];
}

/** A JSON Schema node's type as a reader writes it: `integer 1–500`, `"sa-only" \| "joint"`, `string /re/`. */
function typeOf(node: JsonSchema): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  const variants = node.anyOf ?? node.oneOf;
  if (variants) return variants.map(typeOf).join(" or ");
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (node.properties !== undefined) return "object";
  if (isRecord(node)) return "map";
  const type = Array.isArray(node.type) ? node.type.join(" | ") : (node.type ?? "any");
  if (type === "array") return node.items ? `list of ${typeOf(node.items)}` : "list";
  const bounds = range(node);
  const pattern = node.pattern ? ` matching /${node.pattern}/` : "";
  return `${type}${bounds}${pattern}`;
}

function range(node: JsonSchema): string {
  const low = node.minimum ?? node.exclusiveMinimum ?? node.minLength;
  const high = node.maximum ?? node.maxLength;
  const safe = (n: number | undefined) =>
    n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined;
  const [lo, hi] = [safe(low), safe(high)];
  const unit = node.type === "string" ? " chars" : "";
  if (lo !== undefined && hi !== undefined) return ` ${lo}–${hi}${unit}`;
  if (lo !== undefined) return node.exclusiveMinimum !== undefined ? ` > ${lo}` : ` ≥ ${lo}${unit}`;
  if (hi !== undefined) return ` ≤ ${hi}${unit}`;
  return "";
}
