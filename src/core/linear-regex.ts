import { createRequire } from "node:module";
import type RE2Type from "re2";

// Loaded at first use: every folder reaches core through its index, and a native module loaded on import would
// come along into code that never matches a pattern (and cannot be bundled, as the unprivileged sandbox check is).
const load = createRequire(import.meta.url);
let engine: typeof RE2Type | undefined;

/**
 * A regex on RE2, whose matching time is linear in the text (V8's backtracking engine takes exponential time on
 * patterns like `/(a+)+$/`). Throws a SyntaxError for what RE2 cannot do: backreferences, lookaround. `g` and `y`
 * are dropped so `test` stays stateless.
 */
export function linearRegex(source: string, flags: string): RE2Type {
  engine ??= load("re2") as typeof RE2Type;
  return new engine(source, flags.replace(/[gy]/g, ""));
}
