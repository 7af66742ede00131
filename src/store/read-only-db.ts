/**
 * Opening run.db for a read-only command (status, diff, export, report, view) without ever changing the run: the
 * file is checked before SQLite sees it, a closed run is read from a copy in memory (an on-disk read-only
 * connection would still leave -wal/-shm files, and an empty file would be written into), an older schema is
 * migrated in that copy only, and the database's integrity is checked. Any damage is bad_input naming run.db.
 */
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync } from "node:fs";
import Database from "better-sqlite3";
import { HsearchError } from "../core";
import { migrate, schemaVersion } from "./migrate";

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const SQLITE_HEADER_BYTES = 100;

export function damaged(file: string, what: string, cause?: unknown, field?: string): HsearchError {
  return new HsearchError("bad_input", `run.db is damaged: ${what}; the run was left as it is`, {
    file,
    ...(field === undefined ? {} : { field }),
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
  const header = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(file, "r");
  let read: number;
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  // A short file that begins like a database was cut off; one that does not never was one.
  if (!header.subarray(0, read).equals(SQLITE_MAGIC.subarray(0, read)))
    throw damaged(file, "not an SQLite database");
  if (stat.size < SQLITE_HEADER_BYTES) throw damaged(file, `truncated to ${stat.size} bytes`);
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

/** Every table's columns (name and declared type), as the migrations make them. */
type Shape = Map<string, string[]>;
const expectedShapes = new WeakMap<readonly string[], Shape>();

function shapeOf(db: Database.Database): Shape {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return new Map(
    tables.map((table) => [
      table,
      (db.pragma(`table_info(${JSON.stringify(table)})`) as Array<{ name: string; type: string }>).map(
        (column) => `${column.name} ${column.type}`,
      ),
    ]),
  );
}

/**
 * The tables and columns this hsearch reads are all there: a dropped table or column (an edited run.db) is damage
 * named here, not an SQL error in the middle of a command. The reference is a fresh database made by the same
 * migrations.
 */
export function assertSchema(db: Database.Database, file: string, migrations: readonly string[]): void {
  let expected = expectedShapes.get(migrations);
  if (!expected) {
    const reference = new Database(":memory:");
    try {
      migrate(reference, ":memory:", () => new Date(0), migrations);
      expected = shapeOf(reference);
    } finally {
      reference.close();
    }
    expectedShapes.set(migrations, expected);
  }
  const actual = shapeOf(db);
  for (const [table, columns] of expected) {
    const present = actual.get(table);
    if (!present) throw damaged(file, `table '${table}' is missing`);
    const missing = columns.filter((column) => !present.includes(column));
    if (missing.length > 0)
      throw damaged(file, `table '${table}' lacks column ${missing.map((c) => `'${c}'`).join(", ")}`);
  }
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
        `run.db has schema version ${version}, newer than this hsearch knows (${migrations.length}); upgrade hsearch`,
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
    assertSchema(db, file, migrations);
    db.pragma("query_only = ON");
    return db;
  } catch (error) {
    db.close();
    if (error instanceof HsearchError) throw error;
    throw damaged(file, error instanceof Error ? error.message : String(error), error);
  }
}
