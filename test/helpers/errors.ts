import { HsearchError } from "../../src/core/errors";

/** What `work` threw; the test fails if it threw nothing. */
export function caught(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error, but nothing was thrown");
}

/** The HsearchError `work` threw; the test fails if it threw nothing or something else. */
export function hsearchErrorOf(work: () => unknown): HsearchError {
  const error = caught(work);
  if (error instanceof HsearchError) return error;
  throw error;
}
