/**
 * One line per change between two harness trees, for a reviewer who wants the gist before the diff:
 * `protocols.self_check.enabled: false → true`, `+ rule ambiguous-…`, `system.md: +3 −1 lines`. YAML files are
 * compared as data (so re-formatting alone is no change); playbook rules are named by id. Pure.
 */
import { parse } from "yaml";

type Tree = Readonly<Record<string, string>>;

const short = (value: unknown) => {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) flatten(item, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, value);
}

function hasIds(value: unknown): value is Array<{ id: string }> {
  return Array.isArray(value) && value.every((item) => typeof item?.id === "string");
}

function yamlChanges(path: string, before: string | undefined, after: string | undefined): string[] | null {
  let a: unknown;
  let b: unknown;
  try {
    a = before === undefined ? undefined : parse(before);
    b = after === undefined ? undefined : parse(after);
  } catch {
    return null;
  }
  // A list of rules (the playbook): added, removed and changed rules by id.
  if ((hasIds(a) || a == null) && (hasIds(b) || b == null) && (Array.isArray(a) || Array.isArray(b))) {
    const byId = (list: unknown) =>
      new Map((hasIds(list) ? list : []).map((rule) => [rule.id, JSON.stringify(rule)]));
    const left = byId(a);
    const right = byId(b);
    const kind = path.includes("playbook") ? "rule" : "item";
    return [
      ...[...right.keys()].filter((id) => !left.has(id)).map((id) => `+ ${kind} ${id}`),
      ...[...left.keys()].filter((id) => !right.has(id)).map((id) => `− ${kind} ${id}`),
      ...[...right.keys()]
        .filter((id) => left.has(id) && left.get(id) !== right.get(id))
        .map((id) => `~ ${kind} ${id}`),
    ];
  }
  const left = new Map<string, unknown>();
  const right = new Map<string, unknown>();
  flatten(a, "", left);
  flatten(b, "", right);
  const keys = [...new Set([...left.keys(), ...right.keys()])];
  return keys
    .filter((key) => JSON.stringify(left.get(key)) !== JSON.stringify(right.get(key)))
    .map((key) =>
      !left.has(key)
        ? `+ ${key}: ${short(right.get(key))}`
        : !right.has(key)
          ? `− ${key}`
          : `${key}: ${short(left.get(key))} → ${short(right.get(key))}`,
    );
}

function lineCounts(before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  const inA = new Map<string, number>();
  for (const line of a) inA.set(line, (inA.get(line) ?? 0) + 1);
  let kept = 0;
  for (const line of b) {
    const n = inA.get(line) ?? 0;
    if (n > 0) {
      kept++;
      inA.set(line, n - 1);
    }
  }
  return `+${b.length - kept} −${a.length - kept} lines`;
}

export function summarizeChange(before: Tree, after: Tree): string[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: string[] = [];
  for (const path of paths) {
    const a = before[path];
    const b = after[path];
    if (a === b) continue;
    if (/\.ya?ml$/.test(path)) {
      const changes = yamlChanges(path, a, b);
      if (changes !== null) {
        const label = path === "harness.yaml" || path === "playbook.yaml" ? "" : `${path}: `;
        lines.push(...changes.map((change) => `${label}${change}`));
        continue;
      }
    }
    if (a === undefined) lines.push(`+ file ${path}`);
    else if (b === undefined) lines.push(`− file ${path}`);
    else lines.push(`${path}: ${lineCounts(a, b)}`);
  }
  return lines;
}
