import { HsearchError } from "../core";

/** A flag combination that does not make sense: bad input (exit 2), thrown from yargs `check` callbacks. */
export function usageError(message: string): HsearchError {
  return new HsearchError("bad_input", message);
}
