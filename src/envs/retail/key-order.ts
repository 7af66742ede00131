/**
 * The source order of object keys in a JSON text. JS objects list integer-like keys ("1240311797") first, in numeric
 * order, whatever the file says; Python dicts keep the file's order. τ² prints a product's variants (keyed by 10-digit
 * item ids) in file order, so the loader records that order here. One linear pass over the text.
 */

interface Frame {
  path: string[];
  isObject: boolean;
  /** The keys, when this object is recorded. */
  keys: string[] | null;
  pendingKey: string | null;
  /** Deeper than maxDepth: only nesting is tracked. */
  opaque: boolean;
}

/**
 * For every object at most `maxDepth` levels deep whose path (keys from the root; array elements as "[]") passes
 * `wanted`: its keys in file order, by JSON.stringify(path). The scan stops once the top-level members named in
 * `within` (those that can hold wanted objects) have been read.
 */
export function objectKeyOrders(
  text: string,
  options: { maxDepth: number; within: readonly string[]; wanted: (path: readonly string[]) => boolean },
): Map<string, string[]> {
  const { maxDepth, wanted } = options;
  const stopAfter = new Set(options.within);
  const orders = new Map<string, string[]>();
  const stack: Frame[] = [];
  const structural = /["{}[\],]/g;
  let index = 0;
  while (index < text.length) {
    // Jump to the next character that matters: a quote or a structural character.
    structural.lastIndex = index;
    if (structural.exec(text) === null) break;
    index = structural.lastIndex - 1;
    const char = text[index] as string;
    if (char === '"') {
      const end = stringEnd(text, index);
      const top = stack[stack.length - 1];
      if (top?.opaque) {
        index = end;
        continue;
      }
      if (top?.isObject && top.pendingKey === null && nextSignificant(text, end) === ":") {
        const raw = text.slice(index + 1, end - 1);
        top.pendingKey = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.keys?.push(top.pendingKey);
      } else if (top?.isObject) {
        top.pendingKey = null; // a string value ends the member
      }
      index = end;
      continue;
    }
    const top = stack[stack.length - 1];
    if (char === "{" || char === "[") {
      const isObject = char === "{";
      if (top?.opaque || stack.length > maxDepth) {
        stack.push({ path: [], isObject, keys: null, pendingKey: null, opaque: true });
      } else {
        const path = top === undefined ? [] : [...top.path, top.isObject ? (top.pendingKey ?? "") : "[]"];
        const keys = isObject && wanted(path) ? [] : null;
        if (keys !== null) orders.set(JSON.stringify(path), keys);
        stack.push({ path, isObject, keys, pendingKey: null, opaque: false });
      }
    } else if (char === "}" || char === "]") {
      const closed = stack.pop();
      // Nothing wanted can follow once the top-level members holding wanted objects have all been read.
      if (closed !== undefined && closed.path.length === 1 && stopAfter.has(closed.path[0] as string)) {
        stopAfter.delete(closed.path[0] as string);
        if (stopAfter.size === 0) break;
      }
      const parent = stack[stack.length - 1];
      if (parent?.isObject) parent.pendingKey = null;
    } else if (char === "," && top?.isObject) {
      top.pendingKey = null;
    }
    index++;
  }
  return orders;
}

/** The index just after the closing quote of the string that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const quote = text.indexOf('"', index);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === "\\") backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    index = quote + 1;
  }
  return index;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

function nextSignificant(text: string, from: number): string | undefined {
  let index = from;
  while (index < text.length && WHITESPACE.has(text[index] as string)) index++;
  return text[index];
}
