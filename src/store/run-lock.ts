import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { HsearchError } from "../core";

/** The lock database beside run.db (a separate file, so read-only commands never contend with it). */
export const RUN_LOCK_FILE = "run.lock.db";

interface Holder {
  pid: number;
  /** The process's start time as the kernel counts it, so a reused pid is not taken for the old holder. */
  started: string;
}

/**
 * One process at a time per run. The holder (pid and start time) is one row of a small SQLite database, read and
 * replaced inside one `BEGIN EXCLUSIVE` transaction: of many processes taking a stale lock at once, exactly one
 * wins. A lock whose process is gone (a killed run) is taken over, so `--resume` after SIGKILL just works.
 */
export function acquireRunLock(runDir: string): () => void {
  const path = join(runDir, RUN_LOCK_FILE);
  const me: Holder = { pid: process.pid, started: processStart(process.pid) };
  withLockDb(path, (db) => {
    const holder = db.prepare("SELECT pid, started FROM holder").get() as Holder | undefined;
    if (holder && !sameHolder(holder, me) && isAlive(holder))
      throw new HsearchError("conflict", `run ${runDir} is in use by process ${holder.pid}`, { file: path });
    db.prepare("INSERT OR REPLACE INTO holder (singleton, pid, started) VALUES (1, ?, ?)").run(
      me.pid,
      me.started,
    );
  });
  return () =>
    withLockDb(path, (db) => {
      db.prepare("DELETE FROM holder WHERE pid = ? AND started = ?").run(me.pid, me.started);
    });
}

function withLockDb(path: string, work: (db: Database.Database) => void): void {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw new HsearchError("bad_input", `cannot open the run lock: ${(error as Error).message}`, {
      file: path,
    });
  }
  try {
    // Contenders wait for each other's short transactions instead of failing with SQLITE_BUSY.
    db.pragma("busy_timeout = 30000");
    db.exec(
      "CREATE TABLE IF NOT EXISTS holder (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), pid INTEGER NOT NULL, started TEXT NOT NULL)",
    );
    db.transaction(() => work(db)).exclusive();
  } catch (error) {
    if (error instanceof HsearchError) throw error;
    throw new HsearchError("bad_input", `the run lock is damaged: ${(error as Error).message}`, {
      file: path,
      cause: error,
    });
  } finally {
    db.close();
  }
}

function sameHolder(a: Holder, b: Holder): boolean {
  return a.pid === b.pid && a.started === b.started;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); "" where /proc is not there. */
function processStart(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const started = processStart(holder.pid);
  return holder.started === "" || started === "" || started === holder.started;
}
