import type { MaxTokensField } from "./openai-wire";
import type { ModelRole, ModelSettings } from "./settings";
import type { ChatModel } from "./types";

/**
 * A provider (docs/DESIGN.md §6): the prefix of its model specs, where its key and base URL come from, its defaults,
 * what it can stop sending when a model rejects it, and how its client is made. One module per provider, listed in
 * providers.ts (or given as an extra provider); registry.ts wraps every one in the same stack (usage, settings,
 * parameter fallback, cache, retry, reply limit, limiter) and never asks which provider it is.
 */
export interface ProviderDefinition {
  /** The prefix of its model specs: `<name>:<model>`. */
  name: string;
  /** The environment variable of its API key; absent: it takes none. */
  keyVar?: string;
  /** The environment variable of its base URL and the default; absent: no HTTP endpoint (an in-process model). */
  url?: { variable: string; default: string };
  /** Whether a spec must name a model after the colon. */
  needsModelName: boolean;
  /**
   * A paid, remote provider: its calls are cached (a repeated call is not paid twice) and a plan estimates its spend.
   * An offline one is not cached: its replies cost nothing, and a cached reply would count its rollout as free.
   */
  real: boolean;
  /** What its outcomes are when not a model's (`simulator`): tables and reports label them so, never as a model. */
  label?: string;
  /** The family's defaults for a model in a role: `null` removes a field, a value sets it (under the user's settings). */
  defaults?(model: string, role: ModelRole): ModelSettings;
  /** What it can stop sending when a model rejects it, beyond the optional fields any provider drops. */
  fallbacks: ParameterFallbacks;
  create(options: ProviderClientOptions): ChatModel;
}

/** Rejected parameters that a provider can do without (rejected-parameter.ts). */
export interface ParameterFallbacks {
  /** The seed: stop sending it. */
  seed: boolean;
  /** The token limit: send it under the other spelling (max_tokens / max_completion_tokens). */
  tokenLimitField: boolean;
}

export interface ProviderClientOptions {
  /** What follows the first colon of the spec ("" for a bare prefix). */
  model: string;
  /** From `keyVar` ("" when it takes none); only ever sent in request headers. */
  apiKey: string;
  /** From the option, `url.variable` or `url.default`; undefined without `url`. */
  baseURL: string | undefined;
  timeoutMs: number | undefined;
  env: NodeJS.ProcessEnv;
  maxTokensField: MaxTokensField | undefined;
}

/** What every paid HTTP API shares: its key and base URL variables, a model named in every spec, cached calls. */
export function hostedProvider(
  name: string,
  keyVar: string,
  url: { variable: string; default: string },
): Pick<ProviderDefinition, "name" | "keyVar" | "url" | "needsModelName" | "real"> {
  return { name, keyVar, url, needsModelName: true, real: true };
}

/** An extra provider given as a bare factory (the older form of `extraProviders`): offline, no key, no URL. */
export function offlineProvider(name: string, create: (model: string) => ChatModel): ProviderDefinition {
  return {
    name,
    needsModelName: false,
    real: false,
    fallbacks: { seed: false, tokenLimitField: false },
    create: ({ model }) => create(model),
  };
}
