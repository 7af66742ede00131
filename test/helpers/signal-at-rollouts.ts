/**
 * A preload (`node --import`) for an `hsearch run` child under test: the child sends itself a signal right after the
 * transaction that stores its Nth rollout has committed. Tests interrupt a run at an exact point this way instead of
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
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const AT = "HSEARCH_TEST_SIGNAL_AT_ROLLOUTS";
const SIGNAL = "HSEARCH_TEST_SIGNAL";

/** SOURCE_CLI (test/helpers/cli.ts) with this preload after its `--import tsx` (the preload is TypeScript). */
export function withSignalPreload(sourceCli: readonly string[]): string[] {
  const preload = pathToFileURL(join(import.meta.dirname, "signal-at-rollouts.ts")).href;
  return [...sourceCli.slice(0, 2), "--import", preload, ...sourceCli.slice(2)];
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

type Statement = { run: (...args: unknown[]) => { changes: number } };
type Db = { inTransaction: boolean };
type DatabaseClass = {
  prototype: {
    prepare: (this: Db, sql: string, ...rest: unknown[]) => Statement;
    transaction: (this: Db, work: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown;
  };
};

const target = Number(process.env[AT] ?? "0");
if (target > 0) {
  const signal = process.env[SIGNAL] ?? "SIGKILL";
  // The store's own better-sqlite3: one CommonJS module instance per process, whether imported or required.
  const Database = createRequire(import.meta.url)("better-sqlite3") as DatabaseClass;
  const { prepare, transaction } = Database.prototype;
  let stored = 0;
  let sent = false;
  Database.prototype.prepare = function (sql, ...rest) {
    const statement = prepare.call(this, sql, ...rest);
    // The insert of store/rollout-table.ts's recordRollouts, run once per row inside one transaction.
    if (/^\s*INSERT OR IGNORE INTO rollouts\b/.test(sql)) {
      const run = statement.run.bind(statement);
      statement.run = (...args) => {
        const result = run(...args);
        stored += result.changes;
        return result;
      };
    }
    return statement;
  };
  // Signalled synchronously once the outermost transaction has committed: a nextTick or a timer would wait for the
  // whole chain of promise jobs of a fast simulated run, which can be the rest of a candidate's evaluation.
  Database.prototype.transaction = function (work) {
    const db = this;
    const inner = transaction.call(db, work);
    const outer = function (this: unknown, ...args: unknown[]) {
      const result = inner.apply(this, args);
      if (stored >= target && !sent && !db.inTransaction) {
        sent = true;
        process.kill(process.pid, signal);
      }
      return result;
    };
    // Its .deferred, .immediate and .exclusive variants (the run lock uses one) as they were.
    return Object.defineProperties(outer, Object.getOwnPropertyDescriptors(inner));
  };
}
