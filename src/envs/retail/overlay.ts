/**
 * A task's initial-state overlay (RetailEnvSpec.overlay): a list of `{path, value}` edits applied, in order, to a fresh
 * state through the same copy-on-write mechanism as tool writes.
 *   - `["orders", "#W1"]` sets a whole record (adds it when new); value null deletes it.
 *   - `["orders", "#W1", "items", 0, "price"]` sets one member; a list index may equal the length to append.
 * Every record an overlay touched must still fit the schema afterwards; otherwise the task is bad input.
 */
import { HsearchError } from "../../core";
import type { RetailEnvSpec } from "../../domain";
import { type Collection, isCollection, type RetailRecords, recordProblem } from "./schema";
import type { RetailState } from "./state";

type Edit = NonNullable<RetailEnvSpec["overlay"]>[number];

export function applyOverlay(state: RetailState, overlay: RetailEnvSpec["overlay"]): void {
  if (overlay === undefined) return;
  if (!Array.isArray(overlay)) throw overlayError("must be a list of {path, value} edits");
  const touched = new Map<Collection, Set<string>>();
  overlay.forEach((edit, index) => {
    const [collection, id] = applyEdit(state, edit, index);
    const ids = touched.get(collection) ?? new Set<string>();
    ids.add(id);
    touched.set(collection, ids);
  });
  for (const [collection, ids] of touched) {
    for (const id of ids) {
      const record = state.get(collection, id);
      const problem = record === undefined ? null : recordProblem(collection, id, record);
      if (problem !== null) throw overlayError(`leaves an invalid record: ${problem}`);
    }
  }
}

function overlayError(message: string, index?: number): HsearchError {
  const field = index === undefined ? "env.overlay" : `env.overlay[${index}]`;
  return new HsearchError("bad_input", `retail overlay ${message}`, { field });
}

function applyEdit(state: RetailState, edit: Edit, index: number): [Collection, string] {
  if (edit === null || typeof edit !== "object" || !Array.isArray(edit.path)) {
    throw overlayError("edit must be {path: [...], value}", index);
  }
  const [collection, id, ...rest] = edit.path;
  if (!isCollection(collection)) {
    throw overlayError(
      `path must start with "products", "users" or "orders", got ${JSON.stringify(collection)}`,
      index,
    );
  }
  if (typeof id !== "string") throw overlayError("path[1] must be a record id (a string)", index);
  if (!("value" in edit)) throw overlayError("edit has no value", index);
  const value = structuredClone(edit.value);

  if (rest.length === 0) {
    if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
      throw overlayError("a whole record must be an object (or null to delete it)", index);
    }
    state.put(collection, id, value as RetailRecords[typeof collection] | null);
    return [collection, id];
  }

  if (state.get(collection, id) === undefined) throw overlayError(`no ${collection} record '${id}'`, index);
  let target: unknown = state.mutable(collection, id);
  const last = rest.length - 1;
  rest.forEach((key, depth) => {
    const where = JSON.stringify(edit.path.slice(0, depth + 3));
    if (Array.isArray(target)) {
      if (typeof key !== "number" || !Number.isInteger(key) || key < 0 || key > target.length) {
        throw overlayError(`${where}: not an index of a list of ${target.length}`, index);
      }
    } else if (target === null || typeof target !== "object" || typeof key !== "string") {
      throw overlayError(`${where}: cannot step into ${target === null ? "null" : typeof target}`, index);
    } else if (key === "__proto__") {
      throw overlayError(`${where}: not a data member`, index);
    }
    const container = target as Record<string | number, unknown>;
    if (depth === last) {
      container[key] = value;
      return;
    }
    if (!Object.hasOwn(container, key)) throw overlayError(`${where}: no such member`, index);
    target = container[key];
  });
  return [collection, id];
}
