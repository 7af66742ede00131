import { existsSync } from "node:fs";
import { join } from "node:path";
import { HsearchError, isHsearchError, PACKAGE_ROOT, resolveUserPath } from "../core";
import { isBuiltinSuite, type Task } from "../domain";
import type { RejectionMemory, UsageMeter } from "../models";
import {
  createRoleModels,
  loadPriceTable,
  type ModelRole,
  openRequestCache,
  type RoleModels,
  type RoleSpecs,
  requestCacheFile,
  settingsByRole,
} from "../models";
import { type Judge, LlmJudge, rulesJudge } from "../scoring";
import { proposerModelSpec, proposerRoleSpecs, type SearchConfig, searchConfigSchema } from "../search";
import { offlineProviders } from "../sim";
import { filterTasks, loadSuites, loadTaskDir } from "../tasks";

/** Where a run's relative paths are resolved, which variables its providers read, and where warnings go. */
export interface RunHost {
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn(message: string): void;
}

/** A customer spelling the CLI and the search config accept: auto, scripted or llm:<model>. */
export function checkCustomerSpec(spec: string): void {
  if (spec === "scripted" || spec === "auto" || (spec.startsWith("llm:") && spec.length > 4)) return;
  throw new HsearchError("bad_input", `unknown customer '${spec}': use auto, scripted or llm:<model>`, {
    field: "customer",
  });
}

/** The LLM judge on the judge role's model, or the rules judge when the role has none. */
export function judgeOf(models: RoleModels): Judge {
  return models.judge ? new LlmJudge({ model: models.judge }) : rulesJudge;
}

/** New budget limits for a resumed run (undefined: keep the stored one). */
export interface BudgetRaise {
  max_rollouts?: number | undefined;
  max_usd?: number | undefined;
  max_minutes?: number | undefined;
}

/** The stored budget with the limits given (validated like the config), or null if none given. */
export function resumedBudget(
  config: SearchConfig,
  given: BudgetRaise | undefined,
): SearchConfig["budget"] | null {
  const entries = Object.entries(given ?? {}).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return null;
  const parsed = searchConfigSchema.shape.budget.safeParse({
    ...config.budget,
    ...Object.fromEntries(entries),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Named as the flag the CLI gives it by (a library caller's field of the same name).
    const field = String(issue?.path[0] ?? "budget");
    throw new HsearchError("bad_input", `--${field.replace("_", "-")}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** Every model of the config by role, with its settings and usage meter; warns once per unpriced model. */
export function runModels(
  config: SearchConfig,
  host: RunHost,
  cachePath?: string,
  rejections?: RejectionMemory,
  /** Count each role's calls here (the plan's pilot reads cached calls' tokens too); default a fresh meter per role. */
  meters?: Record<ModelRole, UsageMeter>,
) {
  checkCustomerSpec(config.customer);
  const blocks = config.models;
  return createRoleModels(roleSpecsOf(config), {
    env: host.env,
    concurrency: config.concurrency,
    ...(cachePath ? { cachePath } : {}),
    prices: loadPriceTable(),
    settings: settingsByRole(blocks),
    maxReplyChars: config.limits?.model_reply_chars,
    // A run stored before the setting existed keeps the built-in default.
    ...(config.limits?.model_call_seconds ? { timeoutMs: config.limits.model_call_seconds * 1000 } : {}),
    extraProviders: offlineProviders,
    warn: cachePath ? (message) => host.warn(`warning: ${message}`) : undefined,
    ...(rejections ? { rejections } : {}),
    ...(meters ? { meters } : {}),
  });
}

/** The model of each role as the config names it: a `models:` block's spec wins over the older top-level fields. */
export function roleSpecsOf(config: SearchConfig): RoleSpecs {
  const blocks = config.models;
  return {
    agent: blocks?.agent?.spec ?? config.task_model,
    // The operators and a proposer module (src/plugins) call no model (src/search/proposers).
    proposer: proposerModelSpec(config),
    judge: blocks?.judge?.spec ? `llm:${blocks.judge.spec}` : config.judge,
    customer: blocks?.customer?.spec ? `llm:${blocks.customer.spec}` : config.customer,
    ...proposerRoleSpecs(config),
  };
}

/** The run's request cache file (opened once here, so a bad location is one error naming the config field). */
export function openRunCache(
  config: SearchConfig,
  host: Pick<RunHost, "cwd" | "env">,
  runDir: string | undefined,
  configFile?: string,
): string {
  const path = requestCacheFile(config.cache.dir, { runDir, base: host.cwd, env: host.env });
  try {
    openRequestCache(path);
  } catch (error) {
    if (!isHsearchError(error)) throw error;
    throw new HsearchError("bad_input", `cache.dir: ${error.message}`, {
      ...(configFile ? { file: configFile } : {}),
      field: "cache.dir",
      cause: error,
    });
  }
  return path;
}

export function resolveSeedHarness(config: SearchConfig, cwd: string): string {
  const dir = resolveUserPath(config.seed_harness, cwd);
  if (!existsSync(join(dir, "harness.yaml")))
    throw new HsearchError("bad_input", `seed_harness: no harness at ${dir}`, { field: "seed_harness" });
  return dir;
}

/**
 * The run's tasks by split. Errors name the config field that is actually wrong: an empty or mismatched `tasks:`
 * directory is a problem with `tasks`, not with `suites`. A plug-in suite's tasks come from its module, loaded
 * before (`plugins`, src/plugins: by the module's path as `suites` names it).
 */
export function loadSearchTasks(
  config: SearchConfig,
  cwd: string,
  configFile?: string,
  plugins: ReadonlyMap<string, readonly Task[]> = new Map(),
) {
  const at = (field: string) => ({ ...(configFile ? { file: configFile } : {}), field });
  const dir = config.tasks ? resolveUserPath(config.tasks, cwd) : null;
  const builtin = config.suites.filter(isBuiltinSuite);
  const modules = config.suites.filter((entry) => !isBuiltinSuite(entry));
  const fromModules = modules.flatMap((path) => {
    const tasks = plugins.get(path);
    if (!tasks)
      throw new HsearchError(
        "bad_input",
        `suites: the suite module ${path} is not loaded here (hsearch run and the library's startRun load it)`,
        at("suites"),
      );
    return tasks;
  });
  const shipped: Task[] = dir
    ? loadTaskDir(dir).map((loaded) => loaded.task)
    : loadSuites(PACKAGE_ROOT, builtin);
  if (dir && shipped.length === 0)
    throw new HsearchError("bad_input", `no task file (*.json, *.yaml, *.yml) in ${dir}`, at("tasks"));
  const names = new Set<string>([...builtin, ...fromModules.map((task) => task.suite)]);
  const all = [...shipped.filter((task) => isBuiltinSuite(task.suite)), ...fromModules];
  const inSuites = all.filter((task) => names.has(task.suite));
  const suites = [...names].join(", ");
  // A rollout is keyed by its task id: two suites must not share one.
  const ids = new Map<string, string>();
  for (const task of inSuites) {
    const other = ids.get(task.id);
    if (other !== undefined && other !== task.suite)
      throw new HsearchError(
        "bad_input",
        `task id ${task.id} is in suites ${other} and ${task.suite}: a plug-in's task ids must differ from the other suites'`,
        at("suites"),
      );
    ids.set(task.id, task.suite);
  }
  if (dir && builtin.length > 0 && !inSuites.some((task) => isBuiltinSuite(task.suite))) {
    const found = [...new Set(shipped.map((task) => task.suite))].join(", ");
    throw new HsearchError(
      "bad_input",
      `the tasks in ${dir} are of suite ${found}, none of the configured suites (${suites})`,
      at("suites"),
    );
  }
  const search = filterTasks(inSuites, { split: "search" });
  const idle = modules.find((path) => !(plugins.get(path) ?? []).some((task) => task.split === "search"));
  if (search.length === 0 && idle !== undefined)
    throw new HsearchError(
      "bad_input",
      `no search-split task: the suite module ${idle} gives no task of split 'search' (it gives ${plugins.get(idle)?.length ?? 0} tasks)`,
      at("suites"),
    );
  if (search.length === 0)
    throw new HsearchError(
      "bad_input",
      dir
        ? `no search-split task among the ${inSuites.length} tasks of ${dir}`
        : `no search-split task for suites ${suites}`,
      at(dir ? "tasks" : "suites"),
    );
  // Held-out tasks are only read when the final evaluation asks for them.
  return {
    search,
    heldout: () => filterTasks(inSuites, { split: "heldout" }),
    independent: () => filterTasks(inSuites, { split: "independent" }),
  };
}
