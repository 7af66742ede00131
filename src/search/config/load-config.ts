import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { loadDocument, type PositionedDocument, readPositioned, validateDocument } from "../../config";
import { HsearchError } from "../../core";
import { roleModelsSchema } from "../../models";
import { checkAcceptance } from "../acceptance";
import { type SearchConfig, searchConfigFileSchema } from "./config-schema";
import { resolveMetricModules } from "./metric-modules";
import { isModulePath } from "./module-path";

/**
 * A search config as a run stores it: validated, a `models` file read in place of its path (errors in it name that
 * file and line), and a `cache.dir` directory made absolute, both relative to the config file.
 */
export function loadSearchConfig(file: string): SearchConfig {
  return searchConfigOf(readPositioned(file), dirname(resolve(file)));
}

/**
 * A search config from a document (a file read with positions, or a library caller's object), its relative `models`
 * and `cache.dir` paths resolved against `base`.
 */
export function searchConfigOf(doc: PositionedDocument, base: string): SearchConfig {
  const file = doc.file;
  const parsed = validateDocument(searchConfigFileSchema, doc);
  const at = (path: string[]) => {
    const line = doc.lineOf(path);
    return { file, field: path.join("."), ...(line ? { line } : {}) };
  };
  const models =
    typeof parsed.models === "string"
      ? loadModelsFile(resolve(base, parsed.models), at(["models"]))
      : parsed.models;
  const taskModel = models?.agent?.spec ?? parsed.task_model;
  if (taskModel === undefined)
    throw new HsearchError(
      "bad_input",
      "no agent model: give task_model, or models.agent.spec",
      at(["task_model"]),
    );
  const problem = checkAcceptance(parsed);
  if (problem) throw new HsearchError("bad_input", problem.message, at([...problem.field]));
  const dir = parsed.cache.dir;
  const cache = {
    dir: dir === "run" || dir === "user" ? dir : checkedCacheDir(resolve(base, dir), at(["cache", "dir"])),
  };
  // Plug-in modules (src/plugins) are named relative to the config file and stored absolute, so a resume finds them.
  const suites = parsed.suites.map((entry) => (isModulePath(entry) ? resolve(base, entry) : entry));
  const duplicate = suites.find((entry, index) => suites.indexOf(entry) !== index);
  if (duplicate !== undefined)
    throw new HsearchError("bad_input", `suites: ${duplicate} is named twice`, at(["suites"]));
  const metaModel = isModulePath(parsed.meta_model) ? resolve(base, parsed.meta_model) : parsed.meta_model;
  if (metaModel !== parsed.meta_model && models?.proposer?.spec !== undefined)
    throw new HsearchError(
      "bad_input",
      `meta_model names a proposer module and models.proposer.spec a model: keep one of them`,
      at(["meta_model"]),
    );
  const { metrics: metricPaths, ...rest } = parsed;
  const metrics = metricPaths
    ? resolveMetricModules(metricPaths, base, {
        file,
        lineOf: (index) => doc.lineOf(["metrics", String(index)]),
      })
    : undefined;
  return {
    ...rest,
    task_model: taskModel,
    models,
    cache,
    suites,
    meta_model: metaModel,
    ...(metrics ? { metrics } : {}),
  };
}

function loadModelsFile(path: string, at: { file: string; field: string; line?: number }) {
  if (!existsSync(path)) throw new HsearchError("bad_input", `models: no models file at ${path}`, at);
  if (!statSync(path).isFile()) throw new HsearchError("bad_input", `models: ${path} is not a file`, at);
  return loadDocument(roleModelsSchema, path);
}

/** A cache directory that exists must be a directory; one that does not is created when the run opens it. */
function checkedCacheDir(dir: string, at: { file: string; field: string; line?: number }): string {
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new HsearchError("bad_input", `cache.dir: ${dir} exists and is not a directory`, at);
  return dir;
}
