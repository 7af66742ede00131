/**
 * `createChatModel(spec)`: the provider of the spec's prefix (providers.ts, or one of `extraProviders`:
 * `src/api/create-model.ts` gives `sim` and `oracle` there) in the full provider stack (usage → settings → parameter
 * fallback → cache → retry → limiter → provider). API keys come from the environment and go only into request
 * headers: never into the cache, usage records or error messages.
 */

import { DEFAULT_CONCURRENCY, HsearchError } from "../core";
import { endpointOf, openRequestCache } from "./cache";
import { defaultLimiterPool, type LimiterPool } from "./limiter";
import type { MaxTokensField } from "./openai-wire";
import { createRejectionMemory, type RejectionMemory, withParameterFallback } from "./parameter-fallback";
import { offlineProvider, type ProviderDefinition } from "./provider";
import { PROVIDERS, providerNamed } from "./providers";
import type { RetryOptions } from "./retry";
import { type ModelRole, type ModelSettings, withSettings } from "./settings";
import type { ChatModel } from "./types";
import type { UsageMeter } from "./usage";
import { withProviderStack } from "./wrap";

export interface CreateChatModelOptions {
  /** Enables the request cache in this SQLite file (created if absent). */
  cachePath?: string;
  /** Where API keys and base URLs are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Providers beyond the registered ones (providers.ts), by prefix: a definition, or a factory called with what follows
   * the colon ("" for a bare prefix) for an offline one. Either gets the same stack as a registered provider.
   */
  extraProviders?: Record<string, ProviderDefinition | ((name: string) => ChatModel)>;
  /**
   * Concurrent calls per provider and base URL, shared by every model on that server: the run's or evaluation's
   * `concurrency` (its rollouts in flight). Default DEFAULT_CONCURRENCY.
   */
  concurrency?: number;
  /** Per HTTP call, in ms. Default 120 000. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Counts every answered call (extra providers included). */
  meter?: UsageMeter;
  /** Overrides the provider's base URL variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL …). */
  baseURL?: string;
  /** OpenAI only: which field carries max_tokens (default: by server, see openai.ts). */
  maxTokensField?: MaxTokensField;
  limiters?: LimiterPool;
  /** The role the model plays (default agent): picks the family's defaults, e.g. Anthropic's max_tokens. */
  role?: ModelRole;
  /** The user's settings for that role; `null` members are not sent. */
  settings?: ModelSettings;
  /** Characters one reply may hold; a longer one is a model_reply error, never stored. */
  maxReplyChars?: number;
  /**
   * What the provider rejected so far, by model (parameter-fallback.ts); share one between every model of a
   * command. Default: a memory of this model alone.
   */
  rejections?: RejectionMemory;
}

export interface ModelSpec {
  provider: string;
  /** What follows the first colon; model names may contain colons themselves (Ollama's `llama3.1:8b`). */
  name: string;
}

export function parseModelSpec(spec: string): ModelSpec {
  const match = /^([a-z][a-z0-9_-]*)(?::(\S+))?$/.exec(spec);
  if (!match) {
    throw new HsearchError(
      "bad_input",
      `model spec ${JSON.stringify(spec)} is not of the form provider:model (e.g. openai:gpt-4.1-mini)`,
    );
  }
  return { provider: match[1] as string, name: match[2] ?? "" };
}

export function createChatModel(spec: string, options: CreateChatModelOptions = {}): ChatModel {
  const { provider, name } = parseModelSpec(spec);
  const extras = extraDefinitions(options.extraProviders);
  const definition = providerOf(provider, extras);
  if (!definition) {
    const known = [...PROVIDERS, ...extras].map((known) => known.name).join(", ");
    throw new HsearchError(
      "bad_input",
      `model spec ${JSON.stringify(spec)}: unknown provider '${provider}' (known: ${known})`,
    );
  }
  return createFromDefinition(definition, name, spec, options);
}

/** The extra providers as definitions, each named by its prefix; none may replace a registered provider. */
export function extraDefinitions(
  extras: CreateChatModelOptions["extraProviders"] = {},
): ProviderDefinition[] {
  return Object.entries(extras).map(([prefix, extra]) => {
    if (providerNamed(prefix))
      throw new HsearchError("bad_input", `extraProviders cannot replace the built-in provider '${prefix}'`);
    return typeof extra === "function" ? offlineProvider(prefix, extra) : { ...extra, name: prefix };
  });
}

/** The definition of a spec's provider prefix: a registered one (providers.ts), else one of `extras`. */
export function providerOf(
  provider: string,
  extras: readonly ProviderDefinition[] = [],
): ProviderDefinition | undefined {
  return providerNamed(provider) ?? extras.find((extra) => extra.name === provider);
}

/** A provider's client in the one stack every provider gets (wrap.ts): only what its definition says differs. */
function createFromDefinition(
  definition: ProviderDefinition,
  name: string,
  spec: string,
  options: CreateChatModelOptions,
): ChatModel {
  const { keyVar, url } = definition;
  if (definition.needsModelName && name.length === 0) {
    throw new HsearchError(
      "bad_input",
      `model spec ${JSON.stringify(spec)} names no model (e.g. ${definition.name}:<model>)`,
    );
  }
  const env = options.env ?? process.env;
  const apiKey = keyVar ? env[keyVar] : "";
  if (keyVar && !apiKey) {
    throw new HsearchError(
      "bad_input",
      `${keyVar} is not set; ${spec} needs it (for a local server that wants no key, set it to any value)`,
    );
  }
  const baseURL = url ? (options.baseURL ?? (env[url.variable] || url.default)) : undefined;
  const endpoint =
    url && baseURL !== undefined
      ? checkedEndpoint(
          baseURL,
          options.baseURL === undefined && env[url.variable] ? url.variable : "baseURL",
        )
      : "";
  const model = definition.create({
    model: name,
    apiKey: apiKey ?? "",
    baseURL,
    timeoutMs: options.timeoutMs,
    env,
    maxTokensField: options.maxTokensField,
  });
  const role = options.role ?? "agent";
  const limiters = options.limiters ?? defaultLimiterPool;
  return withProviderStack(model, {
    meter: options.meter,
    settings: withSettings(definition.defaults?.(name, role) ?? {}, options.settings),
    fallback: withParameterFallback(
      options.rejections ?? createRejectionMemory(),
      role,
      definition.fallbacks,
    ),
    cache:
      definition.real && options.cachePath
        ? { cache: openRequestCache(options.cachePath), endpoint }
        : undefined,
    retry: options.retry,
    maxReplyChars: options.maxReplyChars,
    limiter: limiters.get(`${definition.name}|${endpoint}`, options.concurrency ?? DEFAULT_CONCURRENCY),
  });
}

/** The endpoint (base URL without credentials), or a bad_input error naming where the URL came from. */
function checkedEndpoint(baseURL: string, source: string): string {
  let protocol: string;
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    throw new HsearchError("bad_input", `${source} is not a URL: ${JSON.stringify(baseURL)}`, {
      field: source,
    });
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new HsearchError("bad_input", `${source} must be an http(s) URL, got ${protocol}`, {
      field: source,
    });
  }
  return endpointOf(baseURL);
}
