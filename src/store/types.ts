/**
 * The store's data types without its database: the second entry of src/store, for type-only imports. A type that
 * only describes rows (a record, a reader, a status) is imported from here, so the package's declarations that
 * name one do not load the store's modules that are built on better-sqlite3's types (a devDependency).
 */
export type * from "./records";
export type { RunPaths } from "./run-dir";
export type { RunReader } from "./run-reader";
export type { RunStatus } from "./run-status";
