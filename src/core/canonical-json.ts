import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` members dropped. Two values that are equal as data
 * serialise to the same string, so their hashes can key caches and compare databases.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value));
}
