import { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicModel } from "./anthropic";
import { hostedProvider, type ProviderDefinition } from "./provider";
import type { ModelRole } from "./settings";

/** Output token limits sent to Anthropic (which requires one) when nobody set one, by role. */
export const ANTHROPIC_MAX_TOKENS_BY_ROLE: Record<ModelRole, number> = {
  agent: 4096,
  proposer: 16_384,
  judge: 2048,
  customer: 1024,
  reflector: 16_384,
  curator: 16_384,
};

/** Anthropic's Messages API. */
export const anthropicProvider: ProviderDefinition = {
  ...hostedProvider("anthropic", "ANTHROPIC_API_KEY", {
    variable: "ANTHROPIC_BASE_URL",
    default: ANTHROPIC_DEFAULT_BASE_URL,
  }),
  // It requires an output limit; the agent's long, repeated system prompt is worth caching.
  defaults: (_model, role) => ({
    max_tokens: ANTHROPIC_MAX_TOKENS_BY_ROLE[role],
    ...(role === "agent" ? { prompt_cache: true } : {}),
  }),
  // It requires max_tokens and takes no seed.
  fallbacks: { seed: false, tokenLimitField: false },
  create: ({ model, apiKey, baseURL, timeoutMs }) =>
    createAnthropicModel({ model, apiKey, baseURL, timeoutMs }),
};
