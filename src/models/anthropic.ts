/**
 * `anthropic:<model>`: the messages API with tools through the official SDK. The SDK's own retries are off:
 * withRetry owns retrying.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
import { fromAnthropicBody, toAnthropicParams } from "./anthropic-wire";
import { httpFetch } from "./http-fetch";
import { DEFAULT_TIMEOUT_MS } from "./reply-limit";
import { fromSdkError } from "./sdk-errors";
import type { ChatModel } from "./types";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

export interface AnthropicModelOptions {
  /** e.g. `claude-sonnet-4-5`. */
  model: string;
  apiKey: string;
  baseURL?: string;
  /** Per HTTP call. Set explicitly, so the SDK never refuses a large max_tokens as "needs streaming". */
  timeoutMs?: number;
}

const SDK_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError };

export function createAnthropicModel(options: AnthropicModelOptions): ChatModel {
  const id = `anthropic:${options.model}`;
  const client = new Anthropic({
    apiKey: options.apiKey,
    // Keep ANTHROPIC_AUTH_TOKEN from the process environment out of our requests.
    authToken: null,
    baseURL: options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: httpFetch,
  });
  return {
    id,
    provider: "anthropic",
    async generate(request, callOptions) {
      const params = toAnthropicParams(options.model, request);
      let body: unknown;
      try {
        body = await client.messages.create(params, { signal: callOptions?.signal });
      } catch (error) {
        throw fromSdkError(error, SDK_ERRORS, [options.apiKey], id);
      }
      return fromAnthropicBody(body, id);
    },
  };
}
