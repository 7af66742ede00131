/**
 * The read-only ways of looking at a run or an evaluation besides its records: the HTML report, the viewer, and
 * two runs compared (`hsearch report`, `view`, `compare`). The CLI parses flags, calls these and prints.
 */
import { resolve } from "node:path";
import type { RunComparison } from "../compare";
import { compareRuns, loadSide } from "../compare";
import { isLoopbackHost, startViewer, writeReport } from "../report";
import { openRunStore, runDirState } from "../store";
import { locateRun, locateRunToCome, storedConfig } from "./locate-run";

/**
 * Writes the self-contained HTML report of a run or an evaluation (default `<dir>/report.html`) and returns its
 * path. A search run's stored config is checked first; an evaluation's is checked as its report reads it.
 */
export async function writeRunReport(
  target: string,
  options: { cwd: string; out?: string },
): Promise<string> {
  const checked = openRunStore(locateRun(target, options.cwd), { readonly: true });
  const runDir = checked.paths.dir;
  try {
    if (checked.getRun()?.kind === "search") storedConfig(checked);
  } finally {
    checked.close();
  }
  return writeReport(runDir, options.out === undefined ? undefined : resolve(options.cwd, options.out));
}

/** A viewer serving, read-only, until closed. */
export interface ServingViewer {
  url: string;
  host: string;
  /** Reachable from other machines: the token is the only protection. */
  remote: boolean;
  /** No run in the directory yet: the page waits for one to start there. */
  waiting: boolean;
  dir: string;
  close(): Promise<void>;
}

export interface ViewOptions {
  cwd: string;
  /** Default 127.0.0.1; another address needs `allowRemote`. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  allowRemote?: boolean;
}

/** Serves the viewer of a run or an evaluation — or of one still to start in that directory (`hsearch view`). */
export async function viewRun(target: string, options: ViewOptions): Promise<ServingViewer> {
  const dir = locateRunToCome(target, options.cwd);
  const viewer = await startViewer({
    runDir: dir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.allowRemote !== undefined ? { allowRemote: options.allowRemote } : {}),
  });
  return {
    url: viewer.url,
    host: viewer.host,
    remote: !isLoopbackHost(viewer.host),
    waiting: runDirState(dir) !== "run",
    dir,
    close: () => viewer.close(),
  };
}

export interface CompareOptions {
  cwd: string;
  /** A's harness (default: the selection, or the evaluated harness): seed, r4p1, a commit prefix … */
  candidateA?: string;
  candidateB?: string;
}

/** Two runs or evaluations side by side: paired outcomes on the tasks both ran, config differences, spending. */
export async function compareRunDirs(a: string, b: string, options: CompareOptions): Promise<RunComparison> {
  return compareRuns(
    await loadSide(locateRun(a, options.cwd), options.candidateA),
    await loadSide(locateRun(b, options.cwd), options.candidateB),
  );
}

/** The comparison served in A's viewer, on its page /compare-runs. */
export async function viewComparison(
  a: string,
  b: string,
  options: CompareOptions & { port?: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const viewer = await startViewer({
    runDir: locateRun(a, options.cwd),
    ...(options.port !== undefined ? { port: options.port } : {}),
    compare: {
      with: locateRun(b, options.cwd),
      ...(options.candidateA !== undefined ? { candidateA: options.candidateA } : {}),
      ...(options.candidateB !== undefined ? { candidateB: options.candidateB } : {}),
    },
  });
  const url = new URL(viewer.url);
  url.pathname = "/compare-runs";
  return { url: url.href, close: () => viewer.close() };
}
