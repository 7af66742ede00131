/**
 * Plug-ins (issue 24): a researcher's own suite and proposer, loaded from module paths a search config names
 * (`suites: [retail, ./my-suite.mjs]`, `meta_model: ./my-proposer.mjs`). A suite's runtime is registered with the
 * environments' suite registry (src/envs/suite-runtime.ts), so the same episode engine, scoring and splits apply; a
 * proposer is called where the built-in ones are (src/search/proposers/propose.ts) and its edits admitted the same way. A run
 * records each module's path and content hash; a resume imports the same modules and refuses one that changed.
 */
import type { PluginTask } from "../domain";
import type { PluginProposer } from "../search/types";
import { eventsOf } from "../store";
import type { EventRecord } from "../store/types";
import { isModulePath, type ModuleRecord, pluginError } from "./import-module";
import { loadProposerModule } from "./proposer-plugin";
import { loadSuiteModule } from "./suite-plugin";

// What a plug-in module is written with: all of define.ts is the plug-in author's surface.
export * from "./define";
export { isModulePath, type ModuleRecord } from "./import-module";

/** The plug-ins of a config, loaded: the tasks of each suite module by its path, the proposer, what to record. */
export interface ConfigPlugins {
  /** Each suite module's tasks, by the module's absolute path (the config's `suites` entry). */
  tasks: Map<string, PluginTask[]>;
  proposer: PluginProposer | null;
  modules: ModuleRecord[];
}

/**
 * Loads every module a config names (its entries already absolute, as load-config.ts makes them). `recorded`: the
 * modules a run recorded when it began: a resume refuses a module that changed or vanished, and one the config no
 * longer names cannot happen (the config is the stored one).
 */
export async function loadConfigPlugins(
  config: { suites: readonly string[]; meta_model: string },
  file: string | undefined,
  recorded?: readonly ModuleRecord[],
  fixed?: string,
): Promise<ConfigPlugins> {
  const record = (field: ModuleRecord["field"], path: string) =>
    recorded?.find((entry) => entry.field === field && entry.path === path);
  // The module whose code stopped the run may have been fixed since: its new content is what the run goes on with.
  const expected = (field: ModuleRecord["field"], path: string) =>
    path === fixed ? undefined : record(field, path)?.sha256;
  const tasks = new Map<string, PluginTask[]>();
  const modules: ModuleRecord[] = [];
  for (const entry of config.suites.filter(isModulePath)) {
    const place = { ...(file ? { file } : {}), field: "suites" as const };
    const suite = await loadSuiteModule(entry, place, expected("suites", entry));
    const before = record("suites", entry)?.tasks;
    const now = suite.tasks.map((task) => task.id);
    if (before && before.join("\n") !== now.join("\n"))
      throw pluginError(
        place,
        entry,
        `its tasks changed since the run began (${before.length} tasks then, ${now.length} now): a fix may change its code, not its tasks; restore them to resume, or start a new run`,
      );
    tasks.set(entry, suite.tasks);
    // With the suite's name and task ids, so reports label its tasks without importing the module.
    modules.push({
      field: "suites",
      path: entry,
      sha256: suite.sha256,
      suite: suite.runtime.name,
      tasks: now,
    });
  }
  let proposer: PluginProposer | null = null;
  if (isModulePath(config.meta_model)) {
    const place = { ...(file ? { file } : {}), field: "meta_model" as const };
    const loaded = await loadProposerModule(
      config.meta_model,
      place,
      expected("meta_model", config.meta_model),
    );
    proposer = loaded.proposer;
    modules.push({ field: "meta_model", path: config.meta_model, sha256: loaded.sha256 });
  }
  return { tasks, proposer, modules };
}

/**
 * The plug-in modules a run recorded (when it began, or after the latest fix), the config file it began from
 * (errors name it; `db`, the run's database, when it began from a config object), and `fixable`: the module whose
 * code stopped the run since then, which a resume may find changed (fixed). `began`: the modules it began with
 * when they are not an event (an evaluation keeps its suite module in its config).
 */
export function recordedModules(
  events: readonly EventRecord[],
  db: string,
  began: readonly ModuleRecord[] = [],
): { file: string; modules: ModuleRecord[]; fixable?: string } {
  const file = eventsOf(events, "config", db)[0]?.data.file ?? db;
  const recorded = eventsOf(events, "plugin_modules", db).at(-1);
  const modules = recorded ? recorded.data.modules : [...began];
  if (modules.length === 0) return { file, modules };
  const failed = eventsOf(events, "plugin_hook_failed", db)
    .filter((event) => event.id > (recorded?.id ?? 0))
    .at(-1);
  return { file, modules, ...(failed ? { fixable: failed.data.module } : {}) };
}
export { loadSuiteModule } from "./suite-plugin";
