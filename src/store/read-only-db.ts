/**
 * Opening run.db for a read-only command (status, diff, export, report, view) without ever changing the run: the
 * file is checked before SQLite sees it, a closed run is read from a copy in memory (an on-disk read-only
 * connection would still leave -wal/-shm files, and an empty file would be written into), an older schema is
 * migrated in that copy only, and the database's integrity is checked. Any damage is bad_input naming run.db.
 */
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync } from "node:fs";
import Database from "better-sqlite3";
import { HsearchError } from "../core/errors";
import { migrate, schemaVersion } from "./migrate";

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const SQLITE_HEADER_BYTES = 100;

export function damaged(file: string, what: string, cause?: unknown): HsearchError {
  return new HsearchError("bad_input", `run.db is damaged: ${what}; the run was left as it is`, {
    file,
    cause,
  });
}

/** Refuses what is not an SQLite database file before SQLite opens it (an empty file would be made into one). */
export function assertDatabaseFile(file: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    throw new HsearchError("not_found", `no run.db at ${file}`, { file, cause: error });
  }
  if (!stat.isFile()) throw damaged(file, "not a regular file");
  if (stat.size === 0) throw damaged(file, "the file is empty");
  if (stat.size < SQLITE_HEADER_BYTES) throw damaged(file, `truncated to ${stat.size} bytes`);
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(file, "r");
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(SQLITE_MAGIC)) throw damaged(file, "not an SQLite database");
}

/** PRAGMA quick_check, and SQLite's own complaints while reading, as `damaged`. */
export function assertIntact(db: Database.Database, file: string): void {
  let result: unknown;
  try {
    result = db.pragma("quick_check", { simple: true });
  } catch (error) {
    throw damaged(file, error instanceof Error ? error.message : String(error), error);
  }
  if (result !== "ok") throw damaged(file, `integrity check: ${String(result)}`);
}

export function openReadOnlyDatabase(
  file: string,
  migrations: readonly string[],
  now: () => Date,
  live = false,
): Database.Database {
  assertDatabaseFile(file);
  let db: Database.Database;
  try {
    if (live || existsSync(`${file}-wal`)) {
      // Following a run, or one in progress (or killed): its last commits are in the WAL, which only an on-disk
      // connection reads.
      db = new Database(file, { readonly: true, fileMustExist: true });
    } else {
      const image = readFileSync(file);
      // SQLite cannot open a WAL-mode image in memory; bytes 18-19 say "rollback journal" for the copy.
      image[18] = 1;
      image[19] = 1;
      db = new Database(image);
    }
  } catch (error) {
    throw damaged(file, error instanceof Error ? error.message : String(error), error);
  }
  try {
    assertIntact(db, file);
    const version = schemaVersion(db);
    if (version === 0) throw damaged(file, "no hsearch schema in it (schema version 0)");
    if (version > migrations.length) {
      throw new HsearchError(
        "conflict",
        `${file} has schema version ${version}, newer than this hsearch knows (${migrations.length}); upgrade hsearch`,
        { file },
      );
    }
    if (version < migrations.length) {
      // A run made by an older hsearch: read it through a migrated copy in memory; the file stays as it was.
      if (!db.memory) {
        const copy = new Database(db.serialize());
        db.close();
        db = copy;
      }
      migrate(db, file, now, migrations);
    }
    db.pragma("query_only = ON");
    return db;
  } catch (error) {
    db.close();
    if (error instanceof HsearchError) throw error;
    throw damaged(file, error instanceof Error ? error.message : String(error), error);
  }
}
