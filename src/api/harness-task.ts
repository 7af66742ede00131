/**
 * A harness on a task selection, its models named as the commands name them (eval and the probes): the flags, a
 * `--models` file of role blocks, `--set role.key=value`, a request cache and a call timeout. The CLI parses the
 * flags into a HarnessTaskRequest; what they mean is decided here.
 */
import { loadDocument } from "../config";
import { HsearchError, isHsearchError, resolveUserPath } from "../core";
import type { HarnessTaskConfig } from "../eval";
import {
  createRejectionMemory,
  createRoleModels,
  describeRejection,
  type LearntRejection,
  loadPriceTable,
  MODEL_ROLES,
  type ModelRole,
  type ModelSettings,
  modelSettingsSchema,
  openRequestCache,
  type RejectionMemory,
  type RoleModelBlocks,
  type RoleModels,
  requestCacheFile,
  roleModelsSchema,
  settingsByRole,
} from "../models";
import { offlineProviders } from "../sim";
import { checkCustomerSpec } from "./run-setup";
import type { TaskSelection } from "./select-tasks";

/** What eval and the probes use when neither a flag nor the `--models` file names a role's model. */
export const DEFAULT_TASK_MODEL = "sim:default";
export const DEFAULT_JUDGE = "rules";
export const DEFAULT_CUSTOMER = "auto";

/** What a command that runs one harness on a task selection is given (eval, the probes). */
export interface HarnessTaskRequest extends TaskSelection {
  harness: string;
  /** The task model; else the `--models` file's agent spec; else DEFAULT_TASK_MODEL. */
  model?: string;
  customer?: string;
  /** `rules` or `llm:<spec>`; else the `--models` file's judge spec; else DEFAULT_JUDGE. */
  judge?: string;
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

/** Where a request runs and where it says things: relative paths resolve against `cwd`, keys come from `env`. */
export interface RequestContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A warning (an unpriced model …), one line. */
  onWarning?: (text: string) => void;
  /** A parameter a provider rejected, said once, as it is learnt. */
  onRejection?: (text: string) => void;
}

/**
 * What a harness-on-tasks command's models are, resolved from its flags and `--models` file: the spec of each
 * role, their settings, the call timeout and the request cache. An evaluation directory stores it, so a resumed
 * evaluation makes the same models whatever files changed since.
 */
export interface ModelPlan {
  specs: { agent: string; judge: string; customer: string };
  settings: Partial<Record<ModelRole, ModelSettings>>;
  modelCallSeconds?: number;
  cachePath?: string;
  concurrency: number;
}

export function planModels(
  request: Omit<HarnessTaskRequest, "harness" | "seed">,
  context: RequestContext,
): ModelPlan {
  const blocks = modelBlocksOf(request, context);
  // A flag names the role's model; else the `--models` file's spec, as in a search config; else the default.
  const customer =
    request.customer ?? (blocks.customer?.spec ? `llm:${blocks.customer.spec}` : DEFAULT_CUSTOMER);
  checkCustomerSpec(customer);
  const cachePath = commandCacheFile(request.cache, context);
  return {
    specs: {
      agent: request.model ?? blocks.agent?.spec ?? DEFAULT_TASK_MODEL,
      judge: request.judge ?? (blocks.judge?.spec ? `llm:${blocks.judge.spec}` : DEFAULT_JUDGE),
      customer,
    },
    settings: roleSettingsOf(request, context, blocks),
    ...(request.modelCallSeconds ? { modelCallSeconds: request.modelCallSeconds } : {}),
    ...(cachePath ? { cachePath } : {}),
    concurrency: request.concurrency,
  };
}

/**
 * The planned models. `rejections`: what the providers rejected so far (an evaluation directory's, on a resume);
 * default a memory of this request alone that says each new rejection once.
 */
export function createPlannedModels(
  plan: ModelPlan,
  context: RequestContext,
  rejections: RejectionMemory = createRejectionMemory({ onLearn: sayRejection(context) }),
): RoleModels {
  return createRoleModels(plan.specs, {
    env: context.env,
    concurrency: plan.concurrency,
    ...(plan.cachePath ? { cachePath: plan.cachePath } : {}),
    prices: loadPriceTable(),
    settings: plan.settings,
    ...(plan.modelCallSeconds ? { timeoutMs: plan.modelCallSeconds * 1000 } : {}),
    extraProviders: offlineProviders,
    warn: (message) => context.onWarning?.(`warning: ${message}`),
    rejections,
  });
}

export function sayRejection(context: RequestContext): (rejection: LearntRejection) => void {
  return (rejection) => context.onRejection?.(describeRejection(rejection, "learnt"));
}

/** What an evaluation directory records of its models: each role's spec, their settings, timeout and cache. */
export function modelConfigOf(
  plan: ModelPlan,
): Pick<HarnessTaskConfig, "models" | "settings" | "model_call_seconds" | "cache"> {
  return {
    models: plan.specs,
    settings: plan.settings,
    ...(plan.modelCallSeconds ? { model_call_seconds: plan.modelCallSeconds } : {}),
    ...(plan.cachePath ? { cache: plan.cachePath } : {}),
  };
}

/** `--cache user|DIR` of eval and probe: the request cache file, opened now so a bad location fails first. */
function commandCacheFile(setting: string | undefined, context: RequestContext): string | undefined {
  if (setting === undefined) return undefined;
  if (setting === "run" || setting.length === 0)
    throw new HsearchError(
      "bad_input",
      "--cache takes user or a directory (eval and probe have no run directory)",
      {
        field: "cache",
      },
    );
  const path = requestCacheFile(setting, { base: context.cwd, env: context.env });
  try {
    openRequestCache(path);
  } catch (error) {
    if (!isHsearchError(error)) throw error;
    throw new HsearchError("bad_input", `--cache: ${error.message}`, { field: "cache", cause: error });
  }
  return path;
}

/** The role blocks of `--models FILE` (none without it). */
function modelBlocksOf(args: Pick<HarnessTaskRequest, "models">, context: { cwd: string }): RoleModelBlocks {
  return args.models ? loadDocument(roleModelsSchema, resolveUserPath(args.models, context.cwd)) : {};
}

/** The per-role settings of `--models FILE` and `--set role.key=value` (the latter wins). */
function roleSettingsOf(
  args: Pick<HarnessTaskRequest, "models" | "set">,
  context: { cwd: string },
  blocks: RoleModelBlocks = modelBlocksOf(args, context),
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
