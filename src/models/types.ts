/**
 * The provider interface (after the Vercel AI SDK's LanguageModel): messages and tool schemas in, one assistant
 * message with tool calls and usage out. Providers are adapters; retry, limits, usage and caching wrap them.
 */

/** A JSON-schema described tool, as sent to a model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  /** Parsed arguments; a reply whose arguments are not a JSON object is a model-reply error. */
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCallRequest[] }
  | { role: "tool"; tool_call_id: string; name: string; content: string };

export type ProviderOptions = Readonly<Record<string, unknown>>;

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  temperature?: number;
  max_tokens?: number;
  /**
   * OpenAI only: the wire field that carries max_tokens, when a server refused the model's default spelling
   * (rejected-parameter.ts); absent = the model's default (openai.ts). Not part of the cache key: the same limit.
   */
  max_tokens_field?: "max_tokens" | "max_completion_tokens";
  /** Role settings (see settings.ts); absent = not sent. */
  top_p?: number;
  /** OpenAI reasoning models. */
  reasoning_effort?: "minimal" | "low" | "medium" | "high";
  /** Anthropic extended thinking budget, in tokens. */
  thinking_budget?: number;
  /** False: send no seed (OpenAI-compatible servers that reject one). */
  send_seed?: boolean;
  /** Anthropic: mark the system prompt and tools for the provider's prompt cache. */
  prompt_cache?: boolean;
  /** Merged into the SDK request body as is. */
  extra?: Record<string, unknown>;
  /** Seed and repeat index: they key the request cache and seed the simulator. */
  seed: number;
  repeat?: number;
  /**
   * Options for particular providers, by provider key (after the AI SDK's `providerOptions`): a provider reads its
   * own entry and every other provider ignores it. Never sent over the wire, not part of the cache key, never stored.
   */
  providerOptions?: ProviderOptions;
}

export interface Usage {
  /** Every prompt token, provider prompt-cache reads and writes included. */
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens: read from the provider's prompt cache (OpenAI cached_tokens, Anthropic cache reads). */
  cache_read_tokens?: number;
  /** Of input_tokens: written to the provider's prompt cache (Anthropic cache_creation_input_tokens). */
  cache_write_tokens?: number;
}

export interface ChatResponse {
  content: string | null;
  tool_calls: ToolCallRequest[];
  usage: Usage;
  /** The provider's model name as answered. */
  model: string;
  finish_reason?: string;
  /** True when served from the request cache. */
  cached?: boolean;
}

export interface ChatModel {
  /** `provider:model`, e.g. `openai:gpt-5.4-mini`, `sim:default`, `oracle`. */
  readonly id: string;
  readonly provider: string;
  /**
   * It replays the task's reference solution (the oracle): a task without one is not run with it. The provider stack
   * keeps it (wrap.ts), so the episode engine asks the model, never its provider's name.
   */
  readonly followsReference?: boolean;
  generate(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
}
