import type { Argv } from "yargs";
import { checkCustomerSpec } from "../api/run-setup";
import { suiteProblem, type TaskSelection } from "../api/select-tasks";
import { loadDocument } from "../config/parse-document";
import { HsearchError, isHsearchError } from "../core/errors";
import { resolveUserPath } from "../core/paths";
import { DEFAULT_CONCURRENCY } from "../core/pool";
import { FAMILIES, KINDS, SPLITS, SUITES } from "../domain/task";
import { openRequestCache, requestCacheFile } from "../models/cache";
import {
  createRejectionMemory,
  describeRejection,
  type LearntRejection,
  type RejectionMemory,
} from "../models/parameter-fallback";
import { loadPriceTable } from "../models/prices";
import { createRoleModels, type RoleModels } from "../models/roles";
import {
  MODEL_ROLES,
  type ModelRole,
  type ModelSettings,
  modelSettingsSchema,
  type RoleModelBlocks,
  roleModelsSchema,
  settingsByRole,
} from "../models/settings";
import { offlineProviders } from "../sim";
import type { RunStore } from "../store";
import type { CliIO } from "./io";
import { usageError } from "./usage-error";

/** Sets the process exit code from inside a command handler (for "finished, but the run failed"). */
export type SetExitCode = (code: number) => void;

export { locateRun, locateRunToCome } from "../api/locate-run";
export { checkCustomerSpec, judgeOf } from "../api/run-setup";

export {
  recordedTasks,
  recordedTasksAgain,
  type SelectedTasks,
  selectTasks,
  shippedSuites,
  type TaskSelection,
} from "../api/select-tasks";

/** The models of a harness-on-tasks command (eval, the probes), by role, with a warning per unpriced model. */
export function commandModels(options: HarnessTaskArgs & { judge?: string }, io: CliIO): RoleModels {
  return createCommandModels(planCommandModels(options, io), io);
}

/**
 * What a harness-on-tasks command's models are, resolved from its flags and `--models` file: the spec of each
 * role, their settings, the call timeout and the request cache. An evaluation directory stores it, so a resumed
 * evaluation makes the same models whatever files changed since.
 */
export interface CommandModelPlan {
  specs: { agent: string; judge: string; customer: string };
  settings: Partial<Record<ModelRole, ModelSettings>>;
  modelCallSeconds?: number;
  cachePath?: string;
  concurrency: number;
}

export function planCommandModels(
  options: HarnessTaskArgs & { judge?: string },
  io: CliIO,
): CommandModelPlan {
  const blocks = modelBlocksOf(options, io);
  // A flag names the role's model; else the `--models` file's spec, as in a search config; else the default.
  const customer =
    options.customer ?? (blocks.customer?.spec ? `llm:${blocks.customer.spec}` : DEFAULT_CUSTOMER);
  checkCustomerSpec(customer);
  const cachePath = commandCacheFile(options.cache, io);
  return {
    specs: {
      agent: options.model ?? blocks.agent?.spec ?? DEFAULT_TASK_MODEL,
      judge: options.judge ?? (blocks.judge?.spec ? `llm:${blocks.judge.spec}` : DEFAULT_JUDGE),
      customer,
    },
    settings: roleSettingsOf(options, io, blocks),
    ...(options.modelCallSeconds ? { modelCallSeconds: options.modelCallSeconds } : {}),
    ...(cachePath ? { cachePath } : {}),
    concurrency: options.concurrency,
  };
}

/**
 * The command's models. `rejections`: what the providers rejected so far (an evaluation directory's, on a resume);
 * default a memory of this command alone that says each new rejection once on stderr.
 */
export function createCommandModels(
  plan: CommandModelPlan,
  io: CliIO,
  rejections: RejectionMemory = createRejectionMemory({ onLearn: sayRejection(io) }),
): RoleModels {
  return createRoleModels(plan.specs, {
    env: io.env,
    concurrency: plan.concurrency,
    ...(plan.cachePath ? { cachePath: plan.cachePath } : {}),
    prices: loadPriceTable(),
    settings: plan.settings,
    ...(plan.modelCallSeconds ? { timeoutMs: plan.modelCallSeconds * 1000 } : {}),
    extraProviders: offlineProviders,
    warn: (message) => io.err(`warning: ${message}`),
    rejections,
  });
}

/**
 * The rejection memory of a command that keeps its episodes in a directory (eval): it starts from what the
 * directory's earlier sessions learnt (`known`, a resume), says each new rejection once, and records it in the
 * directory's store once `keepIn` names it (the models are made before the directory, so bad input leaves none).
 */
export function storedRejections(
  io: CliIO,
  known: readonly LearntRejection[] = [],
): { memory: RejectionMemory; keepIn(store: RunStore): void } {
  let kept: RunStore | undefined;
  const say = sayRejection(io);
  return {
    memory: createRejectionMemory({
      known,
      onLearn: (rejection) => {
        say(rejection);
        kept?.recordRejectedParameter(rejection);
      },
    }),
    keepIn: (store) => {
      kept = store;
    },
  };
}

/** Says a parameter the provider rejected, once, as it is learnt (over a live progress line, which redraws). */
export function sayRejection(io: CliIO): (rejection: LearntRejection) => void {
  return (rejection) => {
    if (io.isTTY) io.errInline("\r\x1b[2K");
    io.err(`hsearch: ${describeRejection(rejection, "learnt")}`);
  };
}

/** `--cache user|DIR` of eval and probe: the request cache file, opened now so a bad location fails first. */
function commandCacheFile(setting: string | undefined, io: CliIO): string | undefined {
  if (setting === undefined) return undefined;
  if (setting === "run" || setting.length === 0)
    throw new HsearchError(
      "bad_input",
      "--cache takes user or a directory (eval and probe have no run directory)",
      {
        field: "cache",
      },
    );
  const path = requestCacheFile(setting, { base: io.cwd, env: io.env });
  try {
    openRequestCache(path);
  } catch (error) {
    if (!isHsearchError(error)) throw error;
    throw new HsearchError("bad_input", `--cache: ${error.message}`, { field: "cache", cause: error });
  }
  return path;
}

/** Options and helpers several commands share. */
export const SPLIT_CHOICES = [...SPLITS];
export const SUITE_CHOICES = [...SUITES];
export const KIND_CHOICES = [...KINDS];
export const FAMILY_CHOICES = [...FAMILIES];

/** What a command that runs one harness on a task selection is given (eval, the probes). */
/** What eval and the probes use when neither a flag nor the `--models` file names a role's model. */
export const DEFAULT_TASK_MODEL = "sim:default";
export const DEFAULT_JUDGE = "rules";
export const DEFAULT_CUSTOMER = "auto";

export interface HarnessTaskArgs extends TaskSelection {
  harness: string;
  /** The task model; else the `--models` file's agent spec; else DEFAULT_TASK_MODEL. */
  model?: string;
  customer?: string;
  seed: number;
  concurrency: number;
  /** A YAML file of per-role model blocks (the search config's `models:` format). */
  models?: string;
  /** The request cache: `user` or a directory; none when absent. */
  cache?: string;
  /** `role.setting=value` overrides, e.g. `agent.reasoning_effort=low`, `judge.temperature=null`. */
  set?: string[];
  /** How long one provider call may go unanswered (a search config's `limits.model_call_seconds`). */
  modelCallSeconds?: number;
}

/** The role blocks of `--models FILE` (none without it). */
function modelBlocksOf(args: Pick<HarnessTaskArgs, "models">, io: CliIO): RoleModelBlocks {
  return args.models ? loadDocument(roleModelsSchema, resolveUserPath(args.models, io.cwd)) : {};
}

/** The per-role settings of `--models FILE` and `--set role.key=value` (the latter wins). */
export function roleSettingsOf(
  args: Pick<HarnessTaskArgs, "models" | "set">,
  io: CliIO,
  blocks: RoleModelBlocks = modelBlocksOf(args, io),
): Partial<Record<ModelRole, ModelSettings>> {
  const out = settingsByRole(blocks);
  for (const assignment of args.set ?? []) {
    const match = /^([a-z_]+)\.([a-z_]+)=(.*)$/s.exec(assignment);
    const role = match?.[1] as ModelRole | undefined;
    if (!match || !role || !MODEL_ROLES.includes(role))
      throw new HsearchError(
        "bad_input",
        `--set ${JSON.stringify(assignment)}: expected role.setting=value with role one of ${MODEL_ROLES.join(", ")}`,
        { field: "set" },
      );
    const key = match[2] as string;
    const merged = { ...out[role], [key]: parseSettingValue(match[3] as string) };
    const parsed = modelSettingsSchema.safeParse(merged);
    if (!parsed.success)
      throw new HsearchError(
        "bad_input",
        `--set ${assignment}: ${parsed.error.issues[0]?.message ?? "invalid setting"}`,
        { field: `set.${role}.${key}` },
      );
    out[role] = parsed.data;
  }
  return out;
}

/** `null`, numbers, booleans and JSON objects as such; anything else as a string. */
function parseSettingValue(text: string): unknown {
  const trimmed = text.trim();
  if (/^(null|true|false|-?\d+(\.\d+)?)$/.test(trimmed) || trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}

/**
 * The options every command that runs one harness on a task selection takes (eval, probe beliefs/challenge).
 * `--harness` is not demanded here: each command checks it (`eval --resume DIR` takes it from the directory).
 */
export function harnessTaskOptions<T>(yargs: Argv<T>, verb: string) {
  return yargs
    .option("harness", { type: "string", describe: "harness directory" })
    .option("split", { choices: SPLIT_CHOICES, describe: `${verb} the shipped tasks of this split` })
    .option("suite", {
      type: "string",
      describe: `restrict to one suite: ${SUITE_CHOICES.join(", ")}, or the path of a suite module (./my-suite.mjs)`,
    })
    .option("kind", { choices: KIND_CHOICES })
    .option("family", { choices: FAMILY_CHOICES })
    .option("tasks", { type: "string", describe: "a task directory instead of the shipped suites" })
    .option("model", {
      type: "string",
      describe: `task model (provider:model, or oracle); default: the --models file's agent spec, else ${DEFAULT_TASK_MODEL}`,
    })
    .option("customer", {
      type: "string",
      describe:
        "retail customer: auto (the task model plays it when it is a real model, else scripted), scripted or llm:<model>; default: the --models file's customer spec, else auto",
    })
    .option("models", {
      type: "string",
      describe:
        "YAML file of per-role model blocks (agent, judge, customer: spec and settings), as `models:` in a search config; a flag naming a role's model wins over its spec",
    })
    .option("set", {
      type: "string",
      array: true,
      describe: "a role's model setting, e.g. agent.reasoning_effort=low, agent.temperature=null (not sent)",
    })
    .option("cache", {
      type: "string",
      describe:
        "request cache: user ($XDG_CACHE_HOME/hsearch, else ~/.cache/hsearch) or a directory; a call already answered there is not sent again",
    })
    .option("model-call-seconds", {
      type: "number",
      describe:
        "how long one provider call may go unanswered before it is retried, as limits.model_call_seconds of a search config (default 120)",
    })
    .check((argv) => {
      const seconds = argv["model-call-seconds"];
      if (seconds !== undefined && !(seconds > 0 && Number.isFinite(seconds)))
        throw usageError("--model-call-seconds must be a number of seconds > 0");
      const problem = argv.suite === undefined ? null : suiteProblem(argv.suite);
      if (problem) throw usageError(problem);
      return true;
    })
    .option("seed", { type: "number", default: 1 })
    .option("concurrency", { type: "number", default: DEFAULT_CONCURRENCY })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout" });
}
