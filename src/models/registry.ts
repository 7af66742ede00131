/**
 * `createChatModel(spec)`: `openai:<model>` and `anthropic:<model>` with the full provider stack (usage → cache →
 * retry → limiter → provider); any other prefix is delegated to `extraProviders` (`src/cli/create-model.ts`
 * registers `sim` and `oracle` there). API keys come from the environment and go only into request headers: never
 * into the cache, usage records or error messages.
 */

import { HsearchError } from "../core/errors";
import { DEFAULT_CONCURRENCY } from "../core/pool";
import { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicModel } from "./anthropic";
import { endpointOf, openRequestCache } from "./cache";
import { defaultLimiterPool, type LimiterPool } from "./limiter";
import { createOpenAIModel, OPENAI_DEFAULT_BASE_URL } from "./openai";
import type { MaxTokensField } from "./openai-wire";
import { createRejectionMemory, type RejectionMemory, withParameterFallback } from "./parameter-fallback";
import { withReplyLimit } from "./reply-limit";
import type { RetryOptions } from "./retry";
import { type ModelRole, type ModelSettings, withSettings } from "./settings";
import type { ChatModel } from "./types";
import { type UsageMeter, withUsage } from "./usage";
import { withProviderStack } from "./wrap";

export interface CreateChatModelOptions {
  /** Enables the request cache in this SQLite file (created if absent). */
  cachePath?: string;
  /** Where API keys and base URLs are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Providers beyond openai and anthropic, by prefix; called with what follows the colon ("" for a bare prefix). */
  extraProviders?: Record<string, (name: string) => ChatModel>;
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
  /** Overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL. */
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

const BUILT_IN = {
  openai: { keyVar: "OPENAI_API_KEY", urlVar: "OPENAI_BASE_URL", defaultURL: OPENAI_DEFAULT_BASE_URL },
  anthropic: {
    keyVar: "ANTHROPIC_API_KEY",
    urlVar: "ANTHROPIC_BASE_URL",
    defaultURL: ANTHROPIC_DEFAULT_BASE_URL,
  },
} as const;
type BuiltIn = keyof typeof BUILT_IN;

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
  const extras = options.extraProviders ?? {};
  for (const prefix of Object.keys(extras)) {
    if (prefix in BUILT_IN) {
      throw new HsearchError("bad_input", `extraProviders cannot replace the built-in provider '${prefix}'`);
    }
  }
  if (provider === "openai" || provider === "anthropic") return createBuiltIn(provider, name, spec, options);
  const factory = extras[provider];
  if (!factory) {
    const known = [...Object.keys(BUILT_IN), ...Object.keys(extras)].join(", ");
    throw new HsearchError(
      "bad_input",
      `model spec ${JSON.stringify(spec)}: unknown provider '${provider}' (known: ${known})`,
    );
  }
  const model = withReplyLimit(options.maxReplyChars)(factory(name));
  return options.meter ? withUsage(options.meter)(model) : model;
}

function createBuiltIn(
  provider: BuiltIn,
  name: string,
  spec: string,
  options: CreateChatModelOptions,
): ChatModel {
  const { keyVar, urlVar, defaultURL } = BUILT_IN[provider];
  if (name.length === 0) {
    throw new HsearchError(
      "bad_input",
      `model spec ${JSON.stringify(spec)} names no model (e.g. ${provider}:<model>)`,
    );
  }
  const env = options.env ?? process.env;
  const apiKey = env[keyVar];
  if (!apiKey) {
    throw new HsearchError(
      "bad_input",
      `${keyVar} is not set; ${spec} needs it (for a local server that wants no key, set it to any value)`,
    );
  }
  const baseURL = options.baseURL ?? (env[urlVar] || defaultURL);
  const endpoint = checkedEndpoint(
    baseURL,
    options.baseURL === undefined && env[urlVar] ? urlVar : "baseURL",
  );
  const timeoutMs = options.timeoutMs;
  const model =
    provider === "openai"
      ? createOpenAIModel({
          model: name,
          apiKey,
          baseURL,
          timeoutMs,
          maxTokensField: options.maxTokensField,
          organization: env.OPENAI_ORG_ID ?? null,
          project: env.OPENAI_PROJECT_ID ?? null,
        })
      : createAnthropicModel({ model: name, apiKey, baseURL, timeoutMs });
  const limiters = options.limiters ?? defaultLimiterPool;
  return withProviderStack(model, {
    meter: options.meter,
    settings: withSettings(provider, name, options.role ?? "agent", options.settings),
    fallback: withParameterFallback(options.rejections ?? createRejectionMemory(), options.role ?? "agent"),
    cache: options.cachePath ? { cache: openRequestCache(options.cachePath), endpoint } : undefined,
    retry: options.retry,
    maxReplyChars: options.maxReplyChars,
    limiter: limiters.get(`${provider}|${endpoint}`, options.concurrency ?? DEFAULT_CONCURRENCY),
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
