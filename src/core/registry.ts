import { HsearchError } from "./errors";

/**
 * Add `entry` to a registry list (the built-ins in source, then whatever registers at run time) unless one of its
 * name is listed; returns what removes it again. `changed` runs after each, for what is built from the list.
 */
export function addToRegistry<T>(
  list: T[],
  entry: T,
  how: { what: string; nameOf: (entry: T) => string; changed?: () => void },
): () => void {
  const name = how.nameOf(entry);
  if (list.some((known) => how.nameOf(known) === name))
    throw new HsearchError("bad_input", `${how.what} named ${name} is already registered`);
  list.push(entry);
  how.changed?.();
  return () => {
    const at = list.indexOf(entry);
    if (at >= 0) list.splice(at, 1);
    how.changed?.();
  };
}
