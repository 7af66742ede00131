import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import { HsearchError } from "../core";

export { isModulePath } from "../search";

/** Where a plug-in module was named: the config file (when there is one) and its field. */
export interface PluginPlace {
  file?: string;
  /** A config's field; `suite`: the `--suite` of a command; `module`: a command's argument (`tasks validate`). */
  field: "suites" | "meta_model" | "suite" | "module";
}

/** A plug-in module as a run records it: its path (absolute) and the SHA-256 of its content. */
export interface ModuleRecord {
  field: "suites" | "meta_model";
  path: string;
  sha256: string;
  /** A suite module's suite name and task ids (reports label its tasks by them). */
  suite?: string;
  tasks?: string[];
}

/** The error of a plug-in module: bad input naming the config file, the field and the module. */
export function pluginError(
  place: PluginPlace,
  path: string,
  message: string,
  cause?: unknown,
): HsearchError {
  const named = place.field === "suite" ? "--suite: " : place.field === "module" ? "" : `${place.field}: `;
  return new HsearchError("bad_input", `${named}module ${path}: ${message}`, {
    ...(place.file ? { file: place.file } : {}),
    field: place.field,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The module's content hash, read before it is imported. `expected`: the hash a run recorded when it began; a
 * resume refuses a module that is gone or changed since, so it never runs with other code than it started with.
 */
export function moduleHash(path: string, place: PluginPlace, expected?: string): string {
  const then = expected === undefined ? "" : ` (sha256 ${expected.slice(0, 12)}… when the run began)`;
  let content: Buffer;
  try {
    if (!statSync(path).isFile()) throw pluginError(place, path, "is not a file");
    content = readFileSync(path);
  } catch (error) {
    if (error instanceof HsearchError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw pluginError(
        place,
        path,
        expected === undefined ? "no such file" : `is gone${then}: restore it to resume the run`,
        error,
      );
    throw pluginError(place, path, `cannot read it (${code})`, error);
  }
  const sha256 = createHash("sha256").update(content).digest("hex");
  if (expected !== undefined && sha256 !== expected)
    throw pluginError(
      place,
      path,
      `changed since the run began (sha256 ${expected.slice(0, 12)}… then, ${sha256.slice(0, 12)}… now): restore it to resume, or start a new run`,
    );
  return sha256;
}

/**
 * The module's default export. Imported under a URL that carries its content hash, so a module edited since an
 * earlier import in this process is imported again rather than served from Node's module cache, and the same
 * content is the same module instance.
 */
export async function importDefault(path: string, sha256: string, place: PluginPlace): Promise<unknown> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(`${pathToFileURL(path).href}?sha256=${sha256}`)) as Record<string, unknown>;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw pluginError(place, path, `importing it failed: ${detail}`, error);
  }
  if (!("default" in namespace) || namespace.default === undefined)
    throw pluginError(
      place,
      path,
      `has no default export: export default ${place.field === "meta_model" ? "defineProposer" : "defineSuite"}({...})`,
    );
  return namespace.default;
}

/**
 * The module's default export checked against the shape of a definition (`what`: "suite", "proposer"); the first
 * problem names its field, or the export itself.
 */
export function checkedExport<T>(
  shape: z.ZodType,
  exported: unknown,
  place: PluginPlace,
  path: string,
  what: "suite" | "proposer",
): T {
  const checked = shape.safeParse(exported);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const field = issue?.path.join(".") || "the default export";
    const define = what === "suite" ? "defineSuite" : "defineProposer";
    throw pluginError(
      place,
      path,
      `its default export is not a ${what} (export default ${define}({...})): ${field}: ${issue?.message ?? "invalid"}`,
    );
  }
  return exported as T;
}
