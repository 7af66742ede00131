/**
 * A preload (`node --import`) for an `hsearch run` child under test: the child sends itself a signal right after the
 * transaction that stores its Nth rollout (or probe episode) has committed. Tests interrupt a run at an exact point this way instead of
 * polling run.db and racing the run to its end (on a loaded machine a poll can come too late: the run finished
 * before the kill, as a fast run did in CI).
 *
 *   HSEARCH_TEST_SIGNAL_AT_ROLLOUTS=N   the number of stored rollouts to stop at (unset: the preload does nothing)
 *   HSEARCH_TEST_SIGNAL=SIGKILL         or SIGSTOP, which keeps the run in use until the test sends SIGCONT
 *
 * Only the test sets these (see `signalAtRollouts`); the CLI itself never reads them.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// Read by the preload (signal-at-rollouts-preload.mjs, plain JavaScript so that the compiled CLI loads it).
const AT = "HSEARCH_TEST_SIGNAL_AT_ROLLOUTS";
const SIGNAL = "HSEARCH_TEST_SIGNAL";

/** The CLI's node arguments (test/helpers/cli.ts) with the preload (signal-at-rollouts-preload.mjs) before them. */
export function withSignalPreload(cli: readonly string[]): string[] {
  return [
    "--import",
    pathToFileURL(join(import.meta.dirname, "signal-at-rollouts-preload.mjs")).href,
    ...cli,
  ];
}

/** The environment that makes the preloaded child signal itself once `rollouts` are stored. */
export function signalAtRollouts(
  rollouts: number,
  signal: "SIGKILL" | "SIGSTOP" = "SIGKILL",
): NodeJS.ProcessEnv {
  if (!Number.isInteger(rollouts) || rollouts < 1) throw new Error(`a rollout count, not ${rollouts}`);
  return { [AT]: String(rollouts), [SIGNAL]: signal };
}

/**
 * Resolves once `child` is stopped (SIGSTOP: state T in /proc), a state it keeps until SIGCONT; rejects if it exits
 * first.
 */
export async function stopped(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) throw new Error("the child did not start");
  // The state follows the command name, which may hold spaces and parentheses: read after the last ')'.
  const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(")").at(-1)?.trim()[0];
  while (state() !== "T") {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the child ended (${child.exitCode ?? child.signalCode}) instead of stopping`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
