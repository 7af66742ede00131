/**
 * Pure mapping between our chat types and the OpenAI chat.completions wire format (also spoken by vLLM, Ollama and
 * llama.cpp). The adapter in openai.ts does the I/O.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { createRng } from "../core";
import type { ChatMessage, ChatRequest, ChatResponse, ToolCallRequest, Usage } from "./types";
import {
  optionalObject,
  parseBilled,
  parseToolArguments,
  replyError,
  requireArray,
  requireObject,
  requireString,
  tokenCount,
  usableResponse,
} from "./validate-reply";

/**
 * OpenAI's own API wants `max_completion_tokens` (reasoning models reject `max_tokens`); some compatible servers
 * only know `max_tokens`.
 */
export type MaxTokensField = "max_completion_tokens" | "max_tokens";

/**
 * The seed sent on the wire, from our seed and repeat index: servers that honour it (vLLM, llama.cpp) then give
 * repeats different samples, and a replay the same ones.
 */
export function wireSeed(seed: number, repeat: number | undefined): number {
  return createRng(seed, "provider-seed", repeat ?? 0).int(2 ** 31 - 1);
}

export function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
  }
}

export function toOpenAIParams(
  model: string,
  request: ChatRequest,
  maxTokensField: MaxTokensField,
): ChatCompletionCreateParamsNonStreaming {
  const params: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: request.messages.map(toOpenAIMessage),
  };
  if (request.send_seed !== false) params.seed = wireSeed(request.seed, request.repeat);
  // OpenAI rejects an empty tools array.
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function" as const,
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.max_tokens !== undefined) params[maxTokensField] = request.max_tokens;
  if (request.top_p !== undefined) params.top_p = request.top_p;
  if (request.reasoning_effort !== undefined) params.reasoning_effort = request.reasoning_effort;
  return request.extra ? { ...params, ...request.extra } : params;
}

/** The parsed body of a chat.completions response → our response; anything unusable is a model_reply error. */
export function fromOpenAIBody(body: unknown, source: string): ChatResponse {
  return parseBilled(body, source, parseOpenAIBody, openaiUsage);
}

/** The usage block of a chat.completions body; prompt-cache reads from prompt_tokens_details.cached_tokens. */
function openaiUsage(root: Record<string, unknown>, source: string): Usage {
  const usage = optionalObject(root.usage, "usage", source);
  const details = optionalObject(usage.prompt_tokens_details, "usage.prompt_tokens_details", source);
  const cachedTokens = tokenCount(details.cached_tokens, "usage.prompt_tokens_details.cached_tokens", source);
  return {
    input_tokens: tokenCount(usage.prompt_tokens, "usage.prompt_tokens", source),
    output_tokens: tokenCount(usage.completion_tokens, "usage.completion_tokens", source),
    ...(cachedTokens > 0 ? { cache_read_tokens: cachedTokens } : {}),
  };
}

function parseOpenAIBody(body: unknown, source: string): ChatResponse {
  const root = requireObject(body, "response body", source);
  const choices = requireArray(root.choices, "choices", source);
  if (choices.length === 0) throw replyError(source, "malformed body: choices is empty");
  const choice = requireObject(choices[0], "choices[0]", source);
  const message = requireObject(choice.message, "choices[0].message", source);

  let content: string | null = null;
  if (typeof message.content === "string") content = message.content;
  else if (message.content !== null && message.content !== undefined) {
    requireString(message.content, "choices[0].message.content", source);
  }
  // A refusal is something the model said; the agent loop should see it as text.
  if (content === null && typeof message.refusal === "string") content = message.refusal;

  const toolCalls: ToolCallRequest[] = requireArray(message.tool_calls ?? [], "tool_calls", source).map(
    (raw, index) => {
      const what = `choices[0].message.tool_calls[${index}]`;
      const call = requireObject(raw, what, source);
      if (call.type !== undefined && call.type !== "function") {
        throw replyError(
          source,
          `${what} has type ${JSON.stringify(call.type)}; only function calls are supported`,
        );
      }
      const fn = requireObject(call.function, `${what}.function`, source);
      const name = requireString(fn.name, `${what}.function.name`, source);
      return {
        id: requireString(call.id, `${what}.id`, source),
        name,
        arguments: parseToolArguments(fn.arguments, name, source),
      };
    },
  );

  const reply = { content, tool_calls: toolCalls, usage: openaiUsage(root, source) };
  return usableResponse(root, source, reply, choice.finish_reason);
}
