import type { CliIO } from "../io";
import { fitLines } from "./table";

/**
 * The one redrawn status line on a TTY. It is cut to the terminal's width, since a line that wraps can no longer be
 * erased by a carriage return (stale copies pile up), and it is cleared before any other message is printed, so a
 * message never lands glued to the end of the status line.
 */
export interface LiveLine {
  show(text: string): void;
  clear(): void;
  /** A message of its own: clears the live line first; on a terminal it is wrapped to the terminal's width. */
  print(text: string): void;
}

export function fitToWidth(text: string, columns: number | undefined): string {
  const width = Math.max(10, (columns ?? 80) - 1);
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}

export function createLiveLine(io: CliIO): LiveLine {
  let shown = false;
  const clear = () => {
    if (shown) io.errInline("\r\x1b[2K");
    shown = false;
  };
  return {
    show(text) {
      if (!io.isTTY) return;
      io.errInline(`\r\x1b[2K${fitToWidth(text, io.columns)}`);
      shown = true;
    },
    clear,
    print(text) {
      clear();
      io.err(fitLines(text, io.isTTY ? io.columns : undefined));
    },
  };
}

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
  /** eta: add the time left, from the mean time per item so far. */
  options: { quiet?: boolean; intervalMs?: number; eta?: boolean } = {},
): Progress {
  const started = Date.now();
  let lastPrinted = 0;
  let lastLine = "";
  const live = createLiveLine(io);
  const interval = options.intervalMs ?? 2000;
  const format = (done: number, total: number, detail?: string) => {
    const elapsed = (Date.now() - started) / 1000;
    const left =
      options.eta && done > 0 && done < total
        ? `, about ${formatDuration((elapsed / done) * (total - done))} left`
        : "";
    return `${label} ${done}/${total}${detail ? ` ${detail}` : ""} (${elapsed.toFixed(1)}s${left})`;
  };
  return {
    update(done, total, detail) {
      if (options.quiet) return;
      lastLine = format(done, total, detail);
      const now = Date.now();
      if (io.isTTY) {
        live.show(lastLine);
      } else if (now - lastPrinted >= interval || done === total) {
        lastPrinted = now;
        io.err(lastLine);
      }
    },
    done(message) {
      if (options.quiet) return;
      live.clear();
      if (message) io.err(message);
    },
  };
}

/** "45s", "12 min", "1 h 05 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
