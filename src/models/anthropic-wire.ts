/**
 * Pure mapping between our chat types and the Anthropic messages API: leading system messages become `system`;
 * tool results become `tool_result` blocks in a user turn; consecutive turns of one role are merged, since the API
 * wants user and assistant turns to alternate. The adapter in anthropic.ts does the I/O.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import { HsearchError } from "../core";
import type { ChatMessage, ChatRequest, ChatResponse, ToolCallRequest, Usage } from "./types";
import {
  optionalObject,
  parseBilled,
  replyError,
  requireArray,
  requireObject,
  requireString,
  requireToolArguments,
  tokenCount,
  usableResponse,
} from "./validate-reply";

/** The messages API requires max_tokens; this is sent when a request sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

interface Turn {
  role: "user" | "assistant";
  content: ContentBlockParam[];
}

export function toAnthropicConversation(messages: readonly ChatMessage[]): {
  system: string | undefined;
  messages: MessageParam[];
} {
  const systemParts: string[] = [];
  const turns: Turn[] = [];
  let leading = true;
  const push = (role: Turn["role"], blocks: ContentBlockParam[]): void => {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: [...blocks] });
  };
  const text = (value: string): ContentBlockParam[] =>
    // The API rejects empty text blocks.
    value.length > 0 ? [{ type: "text", text: value }] : [];

  messages.forEach((message, index) => {
    if (message.role === "system" && leading) {
      systemParts.push(message.content);
      return;
    }
    leading = false;
    switch (message.role) {
      case "system":
        // The API has no system role mid-conversation; an instruction from the harness reads as user text.
        push("user", text(message.content));
        break;
      case "user":
        push("user", text(message.content));
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] = text(message.content ?? "");
        for (const call of message.tool_calls ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
        }
        if (blocks.length === 0) {
          throw new HsearchError(
            "bad_input",
            `anthropic: assistant message ${index} has no text and no tool calls`,
            {
              field: `messages[${index}]`,
            },
          );
        }
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [{ type: "tool_result", tool_use_id: message.tool_call_id, content: message.content }]);
        break;
    }
  });
  const empty = turns.findIndex((turn) => turn.content.length === 0);
  if (empty >= 0) {
    throw new HsearchError("bad_input", `anthropic: conversation turn ${empty} has no content`);
  }
  return {
    system: systemParts.length > 0 ? systemParts.join("\n\n") : undefined,
    messages: turns.map((turn) => ({ role: turn.role, content: turn.content })),
  };
}

/**
 * With `prompt_cache`, the system prompt and the last tool carry `cache_control` breakpoints: the API then caches the
 * prefix up to them (tools, then system), which is the same on every call of an episode.
 */
export function toAnthropicParams(model: string, request: ChatRequest): MessageCreateParamsNonStreaming {
  const { system, messages } = toAnthropicConversation(request.messages);
  const cacheControl = request.prompt_cache ? { cache_control: { type: "ephemeral" as const } } : {};
  const params: MessageCreateParamsNonStreaming = {
    model,
    max_tokens: request.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system !== undefined)
    params.system = request.prompt_cache ? [{ type: "text", text: system, ...cacheControl }] : system;
  if (request.tools.length > 0) {
    const last = request.tools.length - 1;
    params.tools = request.tools.map(
      (tool, index): Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters as Tool.InputSchema,
        ...(index === last ? cacheControl : {}),
      }),
    );
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.top_p !== undefined) params.top_p = request.top_p;
  if (request.thinking_budget !== undefined)
    params.thinking = { type: "enabled", budget_tokens: request.thinking_budget };
  return request.extra ? { ...params, ...request.extra } : params;
}

/** Block types we never ask for but that are harmless to skip (extended thinking). */
const SKIPPED_BLOCKS = new Set(["thinking", "redacted_thinking"]);

/** The parsed body of a messages response → our response; anything unusable is a model_reply error. */
export function fromAnthropicBody(body: unknown, source: string): ChatResponse {
  return parseBilled(body, source, parseAnthropicBody, anthropicUsage);
}

/** The usage block of a messages body: every prompt token, cache reads and writes included (priced apart). */
function anthropicUsage(root: Record<string, unknown>, source: string): Usage {
  const usage = optionalObject(root.usage, "usage", source);
  const cacheWrite = tokenCount(
    usage.cache_creation_input_tokens,
    "usage.cache_creation_input_tokens",
    source,
  );
  const cacheRead = tokenCount(usage.cache_read_input_tokens, "usage.cache_read_input_tokens", source);
  return {
    input_tokens: tokenCount(usage.input_tokens, "usage.input_tokens", source) + cacheWrite + cacheRead,
    output_tokens: tokenCount(usage.output_tokens, "usage.output_tokens", source),
    ...(cacheRead > 0 ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}),
  };
}

function parseAnthropicBody(body: unknown, source: string): ChatResponse {
  const root = requireObject(body, "response body", source);
  const blocks = requireArray(root.content, "content", source);
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  blocks.forEach((raw, index) => {
    const what = `content[${index}]`;
    const block = requireObject(raw, what, source);
    const type = requireString(block.type, `${what}.type`, source);
    if (type === "text") texts.push(requireString(block.text, `${what}.text`, source));
    else if (type === "tool_use") {
      const name = requireString(block.name, `${what}.name`, source);
      toolCalls.push({
        id: requireString(block.id, `${what}.id`, source),
        name,
        arguments: requireToolArguments(block.input, name, source),
      });
    } else if (!SKIPPED_BLOCKS.has(type)) {
      throw replyError(source, `${what} has type ${JSON.stringify(type)}, which is not supported`);
    }
  });
  const reply = {
    content: texts.length > 0 ? texts.join("\n") : null,
    tool_calls: toolCalls,
    usage: anthropicUsage(root, source),
  };
  return usableResponse(root, source, reply, root.stop_reason);
}
