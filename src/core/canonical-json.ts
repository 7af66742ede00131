import { createHash } from "node:crypto";
import { deepFreeze } from "./deep-freeze";

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

/**
 * `canonicalJson` of a plain object whose members are given as their canonical JSON texts (undefined = absent), so a
 * caller can remember the text of a large member that repeats (the tools of every request of an episode). The keys
 * must be names, not array indices, whose order in an object differs from sorted order.
 */
export function canonicalJsonOfMembers(members: Record<string, string | undefined>): string {
  const parts: string[] = [];
  for (const key of Object.keys(members).sort()) {
    if (/^\d/.test(key)) throw new Error(`canonicalJsonOfMembers: key ${key} is not a name`);
    const text = members[key];
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

const frozenTexts = new WeakMap<object, string>();

/**
 * Deep-freeze plain JSON data and remember its canonical JSON, which can no longer change: the tool specs offered
 * with every model request are canonicalised once (for the request cache's key) instead of at every call.
 */
export function frozenJson<T extends object>(value: T): T {
  deepFreeze(value);
  frozenTexts.set(value, canonicalJson(value));
  return value;
}

/** `canonicalJson`, from memory for a value made by `frozenJson`. */
export function rememberedCanonicalJson(value: unknown): string {
  if (value !== null && typeof value === "object") {
    const known = frozenTexts.get(value);
    if (known !== undefined) return known;
  }
  return canonicalJson(value);
}
