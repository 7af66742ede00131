/** Number and text formats shared by the report and the viewer. */
import { resolve } from "node:path";
import { shellQuote } from "../../core";

/** A rate in [0, 1] to three decimals, as `hsearch status` prints it; "–" when missing. */
export function fmtRate(value: number | null | undefined): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(3) : "–";
}

/** A signed difference of two rates; "" when either is missing. */
export function fmtDelta(after: number | null | undefined, before: number | null | undefined): string {
  if (typeof after !== "number" || typeof before !== "number") return "";
  const delta = after - before;
  if (!Number.isFinite(delta)) return "";
  return `${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(3)}`;
}

export function fmtCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** "$0.0123"; "unknown" for a cost without a price (never shown as $0). */
export function fmtUsd(value: number | null): string {
  if (value === null) return "unknown";
  return `$${value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 4 : 2)}`;
}

export function shortSha(commit: string): string {
  return commit.slice(0, 10);
}

/** "1 min 5 s" between two ISO times; "" when either is missing. */
export function fmtDuration(from: string, to: string | null): string {
  if (to === null) return "";
  const seconds = Math.round((Date.parse(to) - Date.parse(from)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 0) return "";
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** An ISO time as "2026-11-30 00:00:08 UTC". */
export function fmtTime(iso: string | null): string {
  if (iso === null) return "–";
  return iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
}

/** A number from stored JSON, or null when it is not one. */
export function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * The exact `hsearch export` command of a run's harness (the selected one, or `commit`): it names the run directory by
 * its absolute path, quoted for the shell, so it works from any directory (a run id resolves only under ./runs).
 */
/** The command that continues an unfinished run, exact from any directory (the run's absolute path). */
export function resumeCommand(runDir: string): string {
  return `hsearch run --resume ${shellQuote(resolve(runDir))}`;
}

/** The command that continues an unfinished evaluation, exact from any directory. */
export function evalResumeCommand(dir: string): string {
  return `hsearch eval --resume ${shellQuote(resolve(dir))}`;
}

/** The command that opens a run or evaluation directory in the viewer, exact from any directory. */
export function viewCommand(dir: string): string {
  return `hsearch view ${shellQuote(resolve(dir))}`;
}

export function exportCommand(runDir: string, commit?: string): string {
  return `hsearch export ${shellQuote(resolve(runDir))}${commit ? ` --candidate ${shortSha(commit)}` : ""} --out DIR`;
}
