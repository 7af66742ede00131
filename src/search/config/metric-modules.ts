/**
 * A researcher's own metrics, from modules the search config names (`metrics: [./my-metric.mjs]`, relative to the
 * config file). Each module default-exports a metric (`defineMetric` of the library) or an array of them. A run
 * stores each module's absolute path and content hash, and status, report and view import it again when they read
 * the run: the values are computed from the stored episodes (scores and trajectories), so nothing else is kept.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { callHook, HsearchError } from "../../core";
import { checkMetric, type Metric, metricCatalogue } from "../../scoring";

/** A metric module as a run stores it. */
export interface MetricModuleRef {
  module: string;
  sha256: string;
}

/** Where a config names its modules, for errors: the config file, and each entry's line where known. */
export interface MetricOrigin {
  file: string;
  lineOf?(index: number): number | undefined;
}

function at(origin: MetricOrigin, index: number) {
  const line = origin.lineOf?.(index);
  return { file: origin.file, field: `metrics.${index}`, ...(line ? { line } : {}) };
}

function hashFile(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Each module path resolved against `base`, checked to be a file, and hashed (what the run stores). */
export function resolveMetricModules(
  paths: readonly string[],
  base: string,
  origin: MetricOrigin,
): MetricModuleRef[] {
  return paths.map((given, index) => {
    const module = resolve(base, given);
    if (!existsSync(module))
      throw new HsearchError("bad_input", `metrics: no metric module at ${module}`, at(origin, index));
    if (!statSync(module).isFile())
      throw new HsearchError("bad_input", `metrics: ${module} is not a file`, at(origin, index));
    return { module, sha256: hashFile(module) };
  });
}

/** A module's metrics, or why it gives none (it is gone, it threw when imported, it exports no metric). */
async function importMetrics(ref: MetricModuleRef): Promise<{ metrics: Metric[] } | { problem: string }> {
  if (!existsSync(ref.module)) return { problem: `the module is gone (no file at ${ref.module})` };
  // The content hash in the URL: a module edited since the last import is read again, an unchanged one is not.
  const url = `${pathToFileURL(ref.module).href}?sha256=${hashFile(ref.module)}`;
  let exported: unknown;
  try {
    exported = ((await import(url)) as { default?: unknown }).default;
  } catch (error) {
    return { problem: `it threw when imported: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (exported === undefined)
    return {
      problem: "it has no default export (export default defineMetric({...}), or an array of metrics)",
    };
  const items = Array.isArray(exported) ? exported : [exported];
  if (items.length === 0) return { problem: "its default export is an empty array" };
  const metrics: Metric[] = [];
  for (const [index, item] of items.entries()) {
    const checked = checkMetric(item);
    if ("problem" in checked)
      return {
        problem: `its default export${Array.isArray(exported) ? `[${index}]` : ""} is not a metric: ${checked.problem}`,
      };
    const metric = checked.metric;
    // Its code runs through the hook wrapper: what it throws names this module, the metric and the episode.
    metrics.push({
      ...metric,
      value: (episode) =>
        callHook(
          { module: ref.module, field: "metrics" },
          `value() of metric '${metric.name}' on episode ${episode.task_id}#${episode.repeat}`,
          () => metric.value(episode),
        ),
    });
  }
  return { metrics };
}

/**
 * Imports and checks every module before a run starts: a module that is gone, throws when imported or exports
 * something that is not a metric is bad input naming the config file, the field and the module.
 */
export async function loadMetricModules(
  refs: readonly MetricModuleRef[],
  origin: MetricOrigin,
): Promise<Metric[]> {
  const metrics: Metric[] = [];
  for (const [index, ref] of refs.entries()) {
    const loaded = await importMetrics(ref);
    const problem = "problem" in loaded ? loaded.problem : clashOf(metrics, loaded.metrics);
    if (problem !== null)
      throw new HsearchError("bad_input", `metrics: ${ref.module}: ${problem}`, at(origin, index));
    if ("metrics" in loaded) metrics.push(...loaded.metrics);
  }
  return metrics;
}

/** A run's metric modules read back: each module's metrics, or why it gives none now. */
export interface RunMetricModules {
  modules: Array<MetricModuleRef & { metrics: string[]; problem: string | null; changed: boolean }>;
  metrics: Metric[];
}

/**
 * The modules a run stored, imported again to read the run (status, report, view). Never throws for a module: one
 * that is gone or broken is reported with its problem and its metrics are left out; an edited one is used and
 * marked `changed` (its hash is not the one the run started with).
 */
export async function loadRunMetricModules(
  refs: readonly MetricModuleRef[] | undefined,
): Promise<RunMetricModules> {
  const out: RunMetricModules = { modules: [], metrics: [] };
  for (const ref of refs ?? []) {
    const loaded = await importMetrics(ref);
    const changed = existsSync(ref.module) && hashFile(ref.module) !== ref.sha256;
    if ("problem" in loaded) {
      out.modules.push({ ...ref, metrics: [], problem: loaded.problem, changed });
      continue;
    }
    const clash = clashOf(out.metrics, loaded.metrics);
    if (clash !== null) {
      out.modules.push({ ...ref, metrics: [], problem: clash, changed });
      continue;
    }
    out.metrics.push(...loaded.metrics);
    out.modules.push({ ...ref, metrics: loaded.metrics.map((m) => m.name), problem: null, changed });
  }
  return out;
}

/** Why `more` cannot join `known` and the built-in metrics (a name taken twice), or null. */
function clashOf(known: readonly Metric[], more: readonly Metric[]): string | null {
  try {
    metricCatalogue([...known, ...more]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
