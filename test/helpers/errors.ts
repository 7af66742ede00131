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

/** The HsearchError a promise rejected with; the test fails if it resolved or rejected with something else. */
export async function hsearchFailureOf(promise: Promise<unknown>): Promise<HsearchError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof HsearchError)) throw new Error(`expected an HsearchError, got ${String(error)}`);
  return error;
}
