/**
 * Per-role model settings (agent, proposer, judge, customer, reflector, curator): what is sent with every call of that role. A setting
 * left out takes the model family's default; a setting set to `null` is not sent at all. The effective request is
 * computed in three layers, later ones winning: what the caller asked (the harness's agent temperature, the
 * proposer's sampling temperature), then the family's defaults (gpt-5 and o-series models reject any temperature but
 * 1, so none is sent; Anthropic always needs max_tokens), then what the user configured for the role.
 */
import { z } from "zod";
import type { ChatModelMiddleware } from "./middleware";
import type { ChatRequest } from "./types";

// reflector and curator: the two models of the convolve proposer (src/search/proposers/convolve.ts).
export const MODEL_ROLES = ["agent", "proposer", "judge", "customer", "reflector", "curator"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export const REASONING_EFFORTS = ["minimal", "low", "medium", "high"] as const;

/** The zod schema of one role's settings (shared by the search config and the `--models` file of eval/probe). */
export const modelSettingsSchema = z
  .object({
    temperature: z.number().min(0).max(2).nullable().optional(),
    max_tokens: z.number().int().min(1).nullable().optional().describe("Output token limit of one call."),
    max_output_tokens: z.number().int().min(1).nullable().optional().describe("Same as max_tokens."),
    reasoning_effort: z.enum(REASONING_EFFORTS).nullable().optional().describe("OpenAI reasoning models."),
    thinking: z
      .number()
      .int()
      .min(1024)
      .nullable()
      .optional()
      .describe("Anthropic extended thinking budget in tokens."),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    seed: z.boolean().nullable().optional().describe("Send the derived seed (OpenAI-compatible servers)."),
    prompt_cache: z
      .boolean()
      .nullable()
      .optional()
      .describe("Anthropic: cache_control on the system prompt and tools (default on for the agent)."),
    extra: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe("Passed through to the SDK request as is."),
  })
  .strict();

export type ModelSettings = z.output<typeof modelSettingsSchema>;

/** The request fields a setting controls. */
type SettingField =
  | "temperature"
  | "max_tokens"
  | "reasoning_effort"
  | "thinking_budget"
  | "top_p"
  | "send_seed"
  | "prompt_cache"
  | "extra";

/**
 * The request as sent: the family's defaults fill what the caller left unset (and their `null`s remove a field the
 * model rejects), then the user's settings override (`null` removes, a value sets).
 */
export function applySettings(
  request: ChatRequest,
  family: ModelSettings,
  user: ModelSettings = {},
): ChatRequest {
  const out: ChatRequest = { ...request };
  const target = out as unknown as Record<string, unknown>;
  for (const [layer, fillOnly] of [
    [family, true],
    [user, false],
  ] as const) {
    for (const [field, value] of settingFields(layer)) {
      if (value === undefined) continue;
      if (value === null) delete target[field];
      else if (!fillOnly || target[field] === undefined) target[field] = value;
    }
  }
  // Anthropic: thinking needs max_tokens above its budget, and refuses a temperature other than 1.
  if (out.thinking_budget !== undefined) {
    if (out.max_tokens !== undefined && out.max_tokens <= out.thinking_budget)
      out.max_tokens = out.thinking_budget + out.max_tokens;
    delete out.temperature;
  }
  return out;
}

function settingFields(layer: ModelSettings): Array<[SettingField, unknown]> {
  return [
    ["temperature", layer.temperature],
    ["max_tokens", layer.max_tokens === undefined ? layer.max_output_tokens : layer.max_tokens],
    ["reasoning_effort", layer.reasoning_effort],
    ["thinking_budget", layer.thinking],
    ["top_p", layer.top_p],
    ["send_seed", layer.seed],
    ["prompt_cache", layer.prompt_cache],
    ["extra", layer.extra],
  ];
}

/**
 * The settings middleware of one role: the family's defaults (the provider's definition says them for the model and
 * role), then the user's settings, over every request. It
 * sits outside the request cache, so the cache keys on what is really sent.
 */
export function withSettings(family: ModelSettings, user: ModelSettings = {}): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: (request, options) => inner.generate(applySettings(request, family, user), options),
  });
}

/** One role's block in a `models:` section: an optional model spec and that role's settings. */
export const roleModelBlockSchema = modelSettingsSchema
  .extend({
    spec: z
      .string()
      .regex(/^(oracle|[a-z][a-z0-9_-]*:\S+)$/, "a model is provider:model, e.g. openai:gpt-5-mini")
      .optional()
      .describe("The role's model; task_model / meta_model / judge / customer name it otherwise."),
  })
  .strict();

/** `models:` in a search config, or a `--models` file of eval and probe: settings per role. */
export const roleModelsSchema = z
  .object({
    agent: roleModelBlockSchema.optional(),
    proposer: roleModelBlockSchema.optional(),
    judge: roleModelBlockSchema.optional(),
    customer: roleModelBlockSchema.optional(),
    reflector: roleModelBlockSchema.optional(),
    curator: roleModelBlockSchema.optional(),
  })
  .strict();

export type RoleModelBlocks = z.output<typeof roleModelsSchema>;

/** The settings part of each block (the spec is resolved by the caller). */
export function settingsByRole(
  blocks: RoleModelBlocks | undefined,
): Partial<Record<ModelRole, ModelSettings>> {
  const out: Partial<Record<ModelRole, ModelSettings>> = {};
  for (const role of MODEL_ROLES) {
    const block = blocks?.[role];
    if (!block) continue;
    const { spec: _spec, ...settings } = block;
    out[role] = settings;
  }
  return out;
}
