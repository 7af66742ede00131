import { isAbsolute } from "node:path";

/**
 * A config entry that names a module rather than a built-in (a plug-in suite in `suites`, a plug-in proposer in
 * `meta_model`; src/plugins): a path starting `./`, `../` or `/`, relative to the config file.
 */
export function isModulePath(entry: string): boolean {
  return entry.startsWith("./") || entry.startsWith("../") || isAbsolute(entry);
}
