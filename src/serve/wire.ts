/**
 * The OpenAI Chat Completions wire as a server speaks it (pure): a request body checked field by field into what the
 * relay needs, the error shapes OpenAI answers with, and the replies (one JSON body, or server-sent-event chunks).
 */
import { hashJson } from "../core/canonical-json";
import type { ChatRequest, ToolCallRequest, ToolSpec, Usage } from "../models/types";

/** A message as the client sent it, reduced to what the relay reads and what keys a conversation. */
export type ClientMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls: ToolCallRequest[] }
  | { role: "tool"; content: string; tool_call_id: string };

export interface ParsedRequest {
  model: string;
  messages: ClientMessage[];
  tools: ToolSpec[];
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage and no choice. */
  streamUsage: boolean;
  /** What the client asked of the backing model besides messages and tools (the harness sets the temperature). */
  fields: Pick<ChatRequest, "max_tokens" | "top_p" | "reasoning_effort" | "extra">;
}

/** An OpenAI error body with its HTTP status; the server answers it and goes on serving. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = "invalid_request_error",
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "WireError";
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/**
 * Fields real clients send (the OpenAI SDKs, LiteLLM, Terminus). Those in PASSED reach the backing model; the rest
 * are read here or accepted and not forwarded (store, metadata, user, …): they concern OpenAI's own platform.
 */
const PASSED = [
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "response_format",
  "tool_choice",
  "parallel_tool_calls",
  "seed",
] as const;
const READ = [
  "model",
  "messages",
  "tools",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "reasoning_effort",
  "n",
] as const;
const IGNORED = [
  "user",
  "metadata",
  "store",
  "service_tier",
  "logprobs",
  "top_logprobs",
  "modalities",
] as const;
const KNOWN: ReadonlySet<string> = new Set<string>([...PASSED, ...READ, ...IGNORED]);

function invalid(message: string, param: string | null = null, code: string | null = null): WireError {
  return new WireError(400, message, "invalid_request_error", param, code);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The body of POST /v1/chat/completions, checked; anything wrong is a 400 naming the field, as OpenAI's does. */
export function parseRequest(text: string): ParsedRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
        "library correctly. The OpenAI API expects a JSON payload.)",
    );
  }
  if (!isRecord(body)) throw invalid("The request body must be a JSON object.");
  for (const key of Object.keys(body))
    if (!KNOWN.has(key))
      throw invalid(`Unrecognized request argument supplied: ${key}`, key, "unknown_parameter");
  if (typeof body.model !== "string" || body.model.length === 0)
    throw invalid("you must provide a model parameter", "model", "missing_required_parameter");
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw invalid("'messages' must be a non-empty array.", "messages", "invalid_type");
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalid("Only n=1 is supported by hsearch serve.", "n", "unsupported_value");
  const messages = body.messages.map((message, index) => parseMessage(message, index));
  const tools = parseTools(body.tools);
  const stream = body.stream === true;
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  return {
    model: body.model,
    messages,
    tools,
    stream,
    streamUsage: stream && streamOptions.include_usage === true,
    fields: fieldsOf(body),
  };
}

function fieldsOf(body: Record<string, unknown>): ParsedRequest["fields"] {
  const fields: ParsedRequest["fields"] = {};
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (max !== undefined && max !== null) {
    if (typeof max !== "number" || !Number.isInteger(max) || max < 1)
      throw invalid("max_tokens must be a positive integer.", "max_tokens", "invalid_type");
    fields.max_tokens = max;
  }
  if (typeof body.top_p === "number") fields.top_p = body.top_p;
  const effort = body.reasoning_effort;
  if (effort === "minimal" || effort === "low" || effort === "medium" || effort === "high")
    fields.reasoning_effort = effort;
  const extra: Record<string, unknown> = {};
  for (const key of PASSED) if (body[key] !== undefined && body[key] !== null) extra[key] = body[key];
  if (Object.keys(extra).length > 0) fields.extra = extra;
  return fields;
}

/** A message's text: a string, or the text parts of a content array; other parts (images, audio) are refused. */
function textContent(content: unknown, param: string): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    throw invalid(`${param} must be a string or an array of parts.`, param, "invalid_type");
  return content
    .map((part, index) => {
      if (isRecord(part) && part.type === "text" && typeof part.text === "string") return part.text;
      throw invalid(
        `${param}[${index}]: only text parts are supported by hsearch serve.`,
        param,
        "invalid_type",
      );
    })
    .join("");
}

function parseMessage(raw: unknown, index: number): ClientMessage {
  const param = `messages[${index}]`;
  if (!isRecord(raw)) throw invalid(`${param} must be an object.`, param, "invalid_type");
  const content = textContent(raw.content, `${param}.content`);
  switch (raw.role) {
    case "system":
    case "developer":
      return { role: "system", content };
    case "user":
      return { role: "user", content };
    case "assistant": {
      const calls = raw.tool_calls ?? [];
      if (!Array.isArray(calls))
        throw invalid(`${param}.tool_calls must be an array.`, param, "invalid_type");
      return {
        role: "assistant",
        content,
        tool_calls: calls.map((call, i) => parseCall(call, `${param}.tool_calls[${i}]`)),
      };
    }
    case "tool":
      if (typeof raw.tool_call_id !== "string")
        throw invalid(
          `${param}.tool_call_id is required.`,
          `${param}.tool_call_id`,
          "missing_required_parameter",
        );
      return { role: "tool", content, tool_call_id: raw.tool_call_id };
    default:
      throw invalid(
        `Invalid value: '${String(raw.role)}'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`,
        `${param}.role`,
        "invalid_value",
      );
  }
}

function parseCall(raw: unknown, param: string): ToolCallRequest {
  if (
    !isRecord(raw) ||
    !isRecord(raw.function) ||
    typeof raw.id !== "string" ||
    typeof raw.function.name !== "string"
  )
    throw invalid(`${param} must have an id and a function with a name.`, param, "invalid_type");
  const args = raw.function.arguments;
  let parsed: unknown = {};
  if (typeof args === "string" && args.trim().length > 0) {
    try {
      parsed = JSON.parse(args);
    } catch {
      throw invalid(`${param}.function.arguments is not JSON.`, param, "invalid_type");
    }
  }
  return { id: raw.id, name: raw.function.name, arguments: isRecord(parsed) ? parsed : {} };
}

function parseTools(raw: unknown): ToolSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid("'tools' must be an array.", "tools", "invalid_type");
  return raw.map((tool, index) => {
    const param = `tools[${index}]`;
    if (
      !isRecord(tool) ||
      tool.type !== "function" ||
      !isRecord(tool.function) ||
      typeof tool.function.name !== "string"
    )
      throw invalid(`${param} must be {type: "function", function: {name, …}}.`, param, "invalid_type");
    const fn = tool.function;
    return {
      name: fn.name as string,
      description: typeof fn.description === "string" ? fn.description : "",
      parameters: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    };
  });
}

/**
 * A conversation's key from the messages the client holds: what the server replied is part of it, so the next
 * request (the same history plus the answers) finds the conversation by its prefix. Arguments are compared as
 * values, not as the client re-serialised them.
 */
export function historyKey(messages: readonly ClientMessage[]): string {
  return hashJson(
    messages.map((message) =>
      message.role === "assistant"
        ? {
            role: "assistant",
            content: message.content,
            tool_calls: message.tool_calls.map((call) => [call.id, call.name, call.arguments]),
          }
        : message,
    ),
  );
}

/** What the relay answers one request with. */
export interface Reply {
  content: string;
  toolCalls: ToolCallRequest[];
  usage: Usage;
  /** The harness's own part, for clients that read it; every other client ignores the field. */
  hsearch: Record<string, unknown>;
}

function usageBody(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    ...(usage.cache_read_tokens ? { prompt_tokens_details: { cached_tokens: usage.cache_read_tokens } } : {}),
  };
}

function wireCalls(calls: readonly ToolCallRequest[]) {
  return calls.map((call) => ({
    id: call.id,
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

export function finishReason(reply: Reply): "tool_calls" | "stop" {
  return reply.toolCalls.length > 0 ? "tool_calls" : "stop";
}

/** The assistant message a client keeps in its history (and sends back). */
export function replyMessage(reply: Reply): ClientMessage {
  return { role: "assistant", content: reply.content, tool_calls: reply.toolCalls };
}

export function completionBody(
  id: string,
  model: string,
  created: number,
  reply: Reply,
): Record<string, unknown> {
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content,
          ...(reply.toolCalls.length > 0 ? { tool_calls: wireCalls(reply.toolCalls) } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: usageBody(reply.usage),
    hsearch: reply.hsearch,
  };
}

/** The same reply as chat.completion.chunk events, `data: [DONE]` last. */
export function streamEvents(
  id: string,
  model: string,
  created: number,
  reply: Reply,
  includeUsage: boolean,
): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: reply.content }, finish_reason: null }]),
  ];
  wireCalls(reply.toolCalls).forEach((call, index) => {
    events.push(chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]));
  });
  events.push(
    chunk([{ index: 0, delta: {}, finish_reason: finishReason(reply) }], { hsearch: reply.hsearch }),
  );
  if (includeUsage) events.push(chunk([], { usage: usageBody(reply.usage) }));
  events.push("data: [DONE]\n\n");
  return events;
}
