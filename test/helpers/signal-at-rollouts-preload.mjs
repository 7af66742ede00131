// A preload (`node --import`) for an `hsearch run` child under test; test/helpers/signal-at-rollouts.ts says what it
// does and starts the children that load it. Plain JavaScript, so that it loads into the compiled CLI (no tsx).
import { createRequire } from "node:module";

const target = Number(process.env.HSEARCH_TEST_SIGNAL_AT_ROLLOUTS ?? "0");
if (target > 0) {
  const signal = process.env.HSEARCH_TEST_SIGNAL ?? "SIGKILL";
  // The store's own better-sqlite3: one CommonJS module instance per process, whether imported or required.
  const Database = createRequire(import.meta.url)("better-sqlite3");
  const { prepare, transaction } = Database.prototype;
  let stored = 0;
  let sent = false;
  Database.prototype.prepare = function (sql, ...rest) {
    const statement = prepare.call(this, sql, ...rest);
    // The inserts of store/rollout-table.ts's recordRollouts and store/probe-table.ts's probe episodes, run once per
    // row inside one transaction (a study stores both).
    if (/^\s*INSERT OR IGNORE INTO (rollouts|probe_episodes)\b/.test(sql)) {
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
    const outer = function (...args) {
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
