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
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
    errInline: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
    env: process.env,
  };
}
