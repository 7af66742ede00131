import { type HsearchError, isHsearchError } from "../core";
import { EXIT_BAD_INPUT, EXIT_FAILED, exitCodeFor } from "./exit-codes";
import type { CliIO } from "./io";

/** Node's filesystem errors carry the failing call's path and a code such as ENOENT, ELOOP, ENOTDIR, EACCES. */
interface SystemError extends Error {
  code: string;
  path?: string;
  syscall?: string;
}

function isFilesystemError(error: unknown): error is SystemError {
  return (
    error instanceof Error &&
    typeof (error as SystemError).code === "string" &&
    /^E[A-Z]+$/.test((error as SystemError).code) &&
    typeof (error as SystemError).path === "string"
  );
}

/**
 * Control characters (a NUL byte, escape sequences, newlines in a file name) printed as visible escapes, so an
 * error line cannot hide or rewrite what the terminal shows. Line breaks between lines of a message are kept.
 */
export function escapeControl(text: string, keepNewlines = true): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) =>
    keepNewlines && char === "\n"
      ? char
      : char === "\0"
        ? "\\0"
        : `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/** The one line a user sees for an error; `file` escaped whole (a newline in a path is part of the path). */
function describe(error: HsearchError): string {
  const { file, line, field } = error.location;
  const where = file ? escapeControl(line ? `${file}:${line}` : file, false) : "";
  const parts = [where, field ? `field '${escapeControl(field, false)}'` : "", escapeControl(error.message)];
  return parts.filter((part) => part.length > 0).join(": ");
}

export function debugWanted(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes("--debug") || env.HSEARCH_DEBUG === "1";
}

const DEBUG_HINT = "run again with --debug (or HSEARCH_DEBUG=1) for the stack trace, and report it";

/**
 * Errors into one line and an exit code: HsearchError as its code says; a filesystem error (anywhere a command
 * touched a file) as bad input naming the path; anything else as an internal error with a hint. Stack traces only
 * when debugging.
 */
export function reportError(error: unknown, io: CliIO, debug: boolean): number {
  const trace = (cause: unknown) => {
    if (debug && cause instanceof Error && cause.stack) io.err(escapeControl(cause.stack));
  };
  if (isHsearchError(error)) {
    if (error.code === "internal") {
      io.err(`hsearch: internal error: ${describe(error)} (${DEBUG_HINT})`);
      trace(error.cause ?? error);
      return EXIT_FAILED;
    }
    io.err(`hsearch: ${describe(error)}`);
    trace(error);
    return exitCodeFor(error);
  }
  if (isFilesystemError(error)) {
    const reason = error.message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/s, "");
    io.err(`hsearch: ${escapeControl(error.path ?? "", false)}: ${escapeControl(reason)} (${error.code})`);
    trace(error);
    return EXIT_BAD_INPUT;
  }
  if (error instanceof Error) {
    io.err(`hsearch: internal error: ${escapeControl(error.message)} (${DEBUG_HINT})`);
    trace(error);
    return EXIT_FAILED;
  }
  io.err(`hsearch: ${escapeControl(String(error))}`);
  return EXIT_BAD_INPUT;
}
