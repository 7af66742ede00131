/**
 * Brings a run database to the schema this code knows. Each migration runs in its own transaction together with
 * the row that records it, so a crash leaves the database at a whole version. A database newer than the code is
 * refused: older code must not write rows it does not understand.
 */
import type Database from "better-sqlite3";
import { HsearchError } from "../core";
import { MIGRATIONS } from "./migrations";

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY,
  applied_at TEXT NOT NULL
)`;

/** @internal The schema version of an open run.db (its database type stays out of the package's declarations). */
export function schemaVersion(db: Database.Database): number {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (exists === undefined) return 0;
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_version").get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/** @internal Applies the missing migrations; returns the versions applied. */
export function migrate(
  db: Database.Database,
  file: string,
  now: () => Date,
  migrations: readonly string[] = MIGRATIONS,
): number[] {
  const current = schemaVersion(db);
  if (current > migrations.length) {
    throw new HsearchError(
      "conflict",
      `run.db has schema version ${current}, newer than this hsearch knows (${migrations.length}); upgrade hsearch`,
      { file },
    );
  }
  const applied: number[] = [];
  for (let version = current + 1; version <= migrations.length; version++) {
    const step = migrations[version - 1] as string;
    db.transaction(() => {
      db.exec(VERSION_TABLE);
      db.exec(step);
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(
        version,
        now().toISOString(),
      );
    })();
    applied.push(version);
  }
  return applied;
}
