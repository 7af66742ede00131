/**
 * One error type for the whole project. Errors are data: a stable `code`, a message for people, and where known
 * the file, field and line that caused it. Only `src/cli` turns codes into exit codes.
 */
export type HsearchErrorCode =
  | "bad_input" // a config, harness, task, proposal or flag that does not validate
  | "not_found" // a file, run, candidate or task that does not exist
  | "model_reply" // a model answered with something unusable (empty, malformed)
  | "provider" // the provider failed (HTTP error, timeout) after retries: infrastructure, never an agent failure
  | "context_overflow" // the conversation outgrew the model's context window: the harness's (agent's) failure
  | "sandbox" // the sandbox cannot be set up on this machine
  | "budget" // a run budget was exhausted
  | "cancelled" // the library's caller aborted the run (its AbortSignal); resumable like a failure
  | "conflict" // a run is locked, or state disagrees with what was asked
  | "internal"; // a bug

export interface ErrorLocation {
  file?: string;
  field?: string;
  line?: number;
}

export class HsearchError extends Error {
  readonly code: HsearchErrorCode;
  readonly location: ErrorLocation;

  constructor(code: HsearchErrorCode, message: string, options: ErrorLocation & { cause?: unknown } = {}) {
    const { cause, ...location } = options;
    super(message, cause === undefined ? undefined : { cause });
    this.name = "HsearchError";
    this.code = code;
    this.location = location;
  }

  /** "file:line: field: message" with whatever parts are known. */
  describe(): string {
    const { file, line, field } = this.location;
    const where = file ? (line ? `${file}:${line}` : file) : "";
    const parts = [where, field ? `field '${field}'` : "", this.message].filter((part) => part.length > 0);
    return parts.join(": ");
  }
}

export function badInput(message: string, location: ErrorLocation = {}, cause?: unknown): HsearchError {
  return new HsearchError("bad_input", message, { ...location, cause });
}

export function isHsearchError(error: unknown, code?: HsearchErrorCode): error is HsearchError {
  return error instanceof HsearchError && (code === undefined || error.code === code);
}
