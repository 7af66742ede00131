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
  input_tokens: number;
  output_tokens: number;
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
  generate(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
}
