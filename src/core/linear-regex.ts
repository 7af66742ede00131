import RE2 from "re2";

/**
 * A regex on RE2, whose matching time is linear in the text (V8's backtracking engine takes exponential time on
 * patterns like `/(a+)+$/`). Throws a SyntaxError for what RE2 cannot do: backreferences, lookaround. `g` and `y`
 * are dropped so `test` stays stateless.
 */
export function linearRegex(source: string, flags: string): RE2 {
  return new RE2(source, flags.replace(/[gy]/g, ""));
}
