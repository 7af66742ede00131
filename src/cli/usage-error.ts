import { HsearchError } from "../core";

/** A flag combination that does not make sense: bad input (exit 2), thrown from yargs `check` callbacks. */
export function usageError(message: string): HsearchError {
  return new HsearchError("bad_input", message);
}

/** A count flag's check: a whole number of at least `least`, else a usage error naming the flag. */
export function checkWholeNumber(flag: string, value: number, least: 0 | 1): void {
  if (!Number.isInteger(value) || value < least)
    throw usageError(`--${flag} must be a whole number ≥ ${least}`);
}
