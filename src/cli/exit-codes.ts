import { type HsearchErrorCode, isHsearchError } from "../core";

/** docs/DESIGN.md §8: 0 success, 1 run failed, 2 bad input. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

const BAD_INPUT_CODES: ReadonlySet<HsearchErrorCode> = new Set(["bad_input", "not_found", "conflict"]);

export function exitCodeFor(error: unknown): number {
  if (isHsearchError(error) && BAD_INPUT_CODES.has(error.code)) return EXIT_BAD_INPUT;
  return EXIT_FAILED;
}
