import type { CliIO } from "./io";

/**
 * Progress of long work on stderr: a live line redrawn in place on a TTY, plain lines otherwise (at most one every
 * few seconds, plus the last), so logs of CI runs stay readable.
 */
export interface Progress {
  update(done: number, total: number, detail?: string): void;
  done(message?: string): void;
}

export function createProgress(
  io: CliIO,
  label: string,
  options: { quiet?: boolean; intervalMs?: number } = {},
): Progress {
  const started = Date.now();
  let lastPrinted = 0;
  let lastLine = "";
  const interval = options.intervalMs ?? 2000;
  const format = (done: number, total: number, detail?: string) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} ${done}/${total}${detail ? ` ${detail}` : ""} (${seconds}s)`;
  };
  return {
    update(done, total, detail) {
      if (options.quiet) return;
      lastLine = format(done, total, detail);
      const now = Date.now();
      if (io.isTTY) {
        io.errInline(`\r\x1b[2K${lastLine}`);
      } else if (now - lastPrinted >= interval || done === total) {
        lastPrinted = now;
        io.err(lastLine);
      }
    },
    done(message) {
      if (options.quiet) return;
      if (io.isTTY && lastLine) io.errInline("\r\x1b[2K");
      if (message) io.err(message);
    },
  };
}
