/**
 * `openai:<model>`: chat.completions with tools through the official SDK. Works against any compatible server (vLLM,
 * Ollama, llama.cpp) through `baseURL`. The SDK's own retries are off: withRetry owns retrying.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { httpFetch } from "./http-fetch";
import { fromOpenAIBody, type MaxTokensField, toOpenAIParams } from "./openai-wire";
import { DEFAULT_TIMEOUT_MS } from "./reply-limit";
import { fromSdkError } from "./sdk-errors";
import type { ChatModel } from "./types";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export interface OpenAIModelOptions {
  /** The model name as the server knows it, e.g. `gpt-4.1-mini` or `llama3.1:8b`. */
  model: string;
  apiKey: string;
  baseURL?: string;
  /** Per HTTP call; a timeout is retried by withRetry like any other transient failure. */
  timeoutMs?: number;
  /**
   * Default: `max_completion_tokens` on api.openai.com and for OpenAI's reasoning models (gpt-5, o-series) on any
   * server (they reject `max_tokens`, behind a proxy too), `max_tokens` for other models on other servers.
   */
  maxTokensField?: MaxTokensField;
  organization?: string | null;
  project?: string | null;
}

const SDK_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError };

export function createOpenAIModel(options: OpenAIModelOptions): ChatModel {
  const baseURL = options.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const id = `openai:${options.model}`;
  const maxTokensField =
    options.maxTokensField ??
    (new URL(baseURL).host === "api.openai.com" || isOpenAIReasoningModel(options.model)
      ? "max_completion_tokens"
      : "max_tokens");
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    organization: options.organization ?? null,
    project: options.project ?? null,
    webhookSecret: null,
    fetch: httpFetch,
  });
  return {
    id,
    provider: "openai",
    async generate(request, callOptions) {
      const params = toOpenAIParams(options.model, request, request.max_tokens_field ?? maxTokensField);
      let body: unknown;
      try {
        body = await client.chat.completions.create(params, { signal: callOptions?.signal });
      } catch (error) {
        throw fromSdkError(error, SDK_ERRORS, [options.apiKey], id);
      }
      return fromOpenAIBody(body, id);
    },
  };
}

/** OpenAI models that take no temperature or top_p but the default (gpt-5 family, o1/o3/o4 reasoning models). */
export function isOpenAIReasoningModel(name: string): boolean {
  return /^(gpt-5|o\d)(?![a-z])/i.test(name.replace(/^.*\//, ""));
}
