import { z } from "zod";
import { callHook, type HookPlace, HsearchError } from "../core";
import {
  isBuiltinSuite,
  isPluginTask,
  type PluginSuiteName,
  type PluginTask,
  pluginTaskSchema,
  type Task,
} from "../domain";
import { registerSuite, type SuiteRuntime } from "../envs";
import type { Environment } from "../envs/types";
import { checkTaskSet } from "../tasks";
import type { SuiteDefinition } from "./define";
import { checkedExport, importDefault, moduleHash, type PluginPlace, pluginError } from "./import-module";

/** A plug-in suite loaded from its module: its runtime (registered by name) and its checked tasks. */
export interface LoadedSuite {
  path: string;
  sha256: string;
  runtime: SuiteRuntime;
  tasks: PluginTask[];
}

const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", "a function");

/** The shape of a suite definition (define.ts), checked before anything of it is called. */
const definitionShape = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_-]*$/, "a suite name is lowercase letters, digits, '_' or '-'")
    .refine(
      (name) => !isBuiltinSuite(name),
      "retail and terminal are the built-in suites: choose another name",
    ),
  policy: z.string().min(1),
  deferralHowTo: z.string().min(1),
  tools: z
    .array(
      z.object({
        name: z.string().min(1),
        description: z.string(),
        parameters: z.record(z.string(), z.unknown()),
      }),
    )
    .min(1),
  tasks: z.union([z.array(z.unknown()), fn]),
  createEnvironment: fn,
  verify: fn,
});

/** Loaded plug-in suites by module path and content hash: the same module is loaded once per process. */
const loaded = new Map<string, LoadedSuite>();

/**
 * Imports a suite module, checks its default export and every task it gives (the task schema and the checks across
 * a task set, as for a shipped suite), and registers its runtime under its name. Every problem is bad input naming
 * the config file, `suites` and the module (and the task and its field).
 */
export async function loadSuiteModule(
  path: string,
  place: PluginPlace,
  expected?: string,
): Promise<LoadedSuite> {
  const sha256 = moduleHash(path, place, expected);
  const key = `${path}\0${sha256}`;
  const known = loaded.get(key);
  if (known) {
    registerSuite(known.runtime, path);
    return known;
  }
  const exported = await importDefault(path, sha256, place);
  const definition = checkedExport<SuiteDefinition>(definitionShape, exported, place, path, "suite");
  const name = definition.name as PluginSuiteName;
  const tasks = await checkedTasks(definition, name, path, place);
  const runtime = runtimeOf(definition, name, hookPlace(place, path));
  try {
    registerSuite(runtime, path);
  } catch (error) {
    if (error instanceof HsearchError) throw pluginError(place, path, error.message, error);
    throw error;
  }
  const suite = { path, sha256, runtime, tasks };
  loaded.set(key, suite);
  return suite;
}

async function checkedTasks(
  definition: SuiteDefinition,
  name: PluginSuiteName,
  path: string,
  place: PluginPlace,
): Promise<PluginTask[]> {
  const { tasks: list } = definition;
  const given: readonly unknown[] =
    typeof list === "function" ? await callHook(hookPlace(place, path), "tasks()", () => list()) : list;
  if (!Array.isArray(given)) throw pluginError(place, path, "its tasks() did not return a list of tasks");
  const schema = pluginTaskSchema(name);
  const tasks: PluginTask[] = [];
  const ids = new Set<string>();
  for (const [index, raw] of given.entries()) {
    const record =
      raw !== null && typeof raw === "object" && !("suite" in raw) ? { suite: name, ...raw } : raw;
    const id = (raw as { id?: unknown } | null)?.id;
    const which = typeof id === "string" ? `task ${id}` : `task ${index + 1} of its tasks`;
    const parsed = schema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const keys = issue?.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [];
      const field = [...(issue?.path ?? []), ...keys].map(String).join(".") || "(the task)";
      throw pluginError(place, path, `${which}: field ${field}: ${issue?.message ?? "invalid"}`);
    }
    if (ids.has(parsed.data.id)) throw pluginError(place, path, `${which}: field id: duplicate task id`);
    ids.add(parsed.data.id);
    // The one place a plug-in suite's name becomes a PluginSuiteName: the schema checked it is this suite's.
    tasks.push({ ...parsed.data, suite: name });
  }
  checkTaskSet(
    tasks.map((task) => ({ task, file: path })),
    (entry, field, message) => pluginError(place, path, `task ${entry.task.id}: field ${field}: ${message}`),
  );
  return tasks;
}

function hookPlace(place: PluginPlace, path: string): HookPlace {
  return { module: path, field: place.field, ...(place.file ? { file: place.file } : {}) };
}

/** What the episode engine calls of an environment: each of these, on a plug-in's, is the plug-in's code. */
const ENVIRONMENT_METHODS = [
  "tools",
  "writeTools",
  "call",
  "effects",
  "isDeferralCall",
  "deferAsHarness",
  "close",
] as const;
const REQUIRED_METHODS = ENVIRONMENT_METHODS.filter((method) => method !== "isDeferralCall");

/** The plug-in's own environment behind each guarded one, for its `verify` (which may read its private state). */
const ownEnvironment = new WeakMap<Environment, Environment>();

/** The environment with every method called through the hook wrapper, naming the method and the task. */
function guarded(env: Environment, place: HookPlace, taskId: string): Environment {
  const methods = new Set<string>(ENVIRONMENT_METHODS);
  const proxy = new Proxy(env, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof key !== "string" || !methods.has(key) || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        callHook(
          place,
          `${key}(${key === "call" ? String(args[0]) : ""}) of the environment of ${taskId}`,
          () => value.apply(target, args),
        );
    },
  });
  ownEnvironment.set(proxy, env);
  return proxy;
}

/** The suite runtime of a definition: what the engine calls, through the hook wrapper, with its answers checked. */
function runtimeOf(definition: SuiteDefinition, name: PluginSuiteName, place: HookPlace): SuiteRuntime {
  const path = place.module;
  // The definition lists its deferral tool among its tools, in the order its environments offer them.
  const tools = [...definition.tools];
  const own = (task: Task): PluginTask => {
    if (!isPluginTask(task) || task.suite !== name)
      throw new HsearchError("internal", `task ${task.id} is not a ${name} task`);
    return task;
  };
  return {
    name,
    policy: () => definition.policy,
    deferralHowTo: definition.deferralHowTo,
    tools: () => ({ tools: () => tools }),
    async createEnvironment(task, options) {
      const env: Environment = await callHook(place, `createEnvironment(${task.id})`, () =>
        definition.createEnvironment(own(task), { readOnly: options.readOnly ?? false }),
      );
      for (const method of REQUIRED_METHODS)
        if (typeof env?.[method] !== "function")
          throw new HsearchError(
            "bad_input",
            `suite ${name} (${path}): createEnvironment(${task.id}) returned no Environment: ${method}() is missing`,
          );
      return guarded(env, place, task.id);
    },
    async verify(task, env, episode) {
      const reward = await callHook(place, `verify(${task.id})`, () =>
        definition.verify(own(task), ownEnvironment.get(env) ?? env, episode),
      );
      if (reward !== 0 && reward !== 1)
        throw new HsearchError(
          "bad_input",
          `suite ${name} (${path}): verify(${task.id}) returned ${String(reward)}, not 0 or 1`,
        );
      return { reward };
    },
    hasReference: () => true,
    hasCustomer: false,
  };
}
