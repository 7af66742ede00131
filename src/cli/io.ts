/**
 * Where commands write. Passed in rather than read from `process` so end-to-end tests and the library can capture
 * output; `isTTY` decides between a live progress display and plain lines.
 */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Raw text on stderr, no newline added (the live progress line). */
  errInline(text: string): void;
  isTTY: boolean;
  /** Width of the terminal stderr draws on (the live line); undefined when not a terminal. */
  columns?: number;
  /** Width of the terminal stdout prints to (tables); undefined when piped: print full width. */
  outColumns?: number;
  /** stdout is a terminal: colour is allowed (still off with NO_COLOR or --no-color). */
  outTTY?: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Ends the process with `code` (the real process only; absent in tests and the library): for a command that
   * abandons work still running in it (`hsearch worker` after its grace period), which would keep it alive.
   */
  exit?(code: number): void;
}

let quietOnClosedPipe = false;

/**
 * `hsearch diff … | head -1`: once the reader has gone, stdout fails with EPIPE. That is the reader's choice, not
 * an error: stop quietly with success instead of printing a stack trace.
 */
function exitQuietlyOnClosedPipe(): void {
  if (quietOnClosedPipe) return;
  quietOnClosedPipe = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

export function processIO(): CliIO {
  exitQuietlyOnClosedPipe();
  return {
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
    errInline: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    columns: process.stderr.isTTY ? process.stderr.columns : undefined,
    outColumns: process.stdout.isTTY ? process.stdout.columns : undefined,
    outTTY: Boolean(process.stdout.isTTY),
    cwd: process.cwd(),
    env: process.env,
    exit: (code) => process.exit(code),
  };
}
