/** Two stored configs field by field: every dotted path whose value differs (or exists on one side only). */
import { canonicalJson } from "../core";

export interface ConfigDifference {
  /** "task_model", "acceptance.rule", "tasks.ids" … */
  field: string;
  /** The value as canonical JSON; null when the field is absent on that side. */
  a: string | null;
  b: string | null;
}

/** Objects are walked into; arrays and scalars compare whole (a list of 100 task ids is one field). */
function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.set(prefix, "{}");
    for (const [key, inner] of entries) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  if (value !== undefined) out.set(prefix, canonicalJson(value));
}

export function configDifferences(a: unknown, b: unknown): ConfigDifference[] {
  const left = new Map<string, string>();
  const right = new Map<string, string>();
  flatten(a, "", left);
  flatten(b, "", right);
  const fields = [...new Set([...left.keys(), ...right.keys()])].sort();
  return fields.flatMap((field) => {
    const [x, y] = [left.get(field) ?? null, right.get(field) ?? null];
    return x === y ? [] : [{ field, a: x, b: y }];
  });
}
