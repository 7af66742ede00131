import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed package's root (where tasks/, harnesses/, search-configs/ and data/ ship). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * A user-given path: as given when it exists relative to `cwd` (or is absolute), otherwise relative to the package
 * root, so `hsearch run` and `harnesses/abandon` work from any directory.
 */
export function resolveUserPath(path: string, cwd: string): string {
  if (isAbsolute(path)) return path;
  const local = resolve(cwd, path);
  if (existsSync(local)) return local;
  const shipped = join(PACKAGE_ROOT, path);
  return existsSync(shipped) ? shipped : local;
}
