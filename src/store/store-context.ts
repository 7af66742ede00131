import type Database from "better-sqlite3";

/** What the table modules of the store share: the open database, the run directory and the clock. */
export interface StoreContext {
  db: Database.Database;
  /** The run directory; trajectory files are relative to it. */
  dir: string;
  /** run.db, named by the error about a damaged record. */
  file: string;
  /** The current time as ISO 8601, for created_at columns. */
  now: () => string;
}
