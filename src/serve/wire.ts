/**
 * The OpenAI Chat Completions wire as a server speaks it (pure): a request body checked field by field into what the
 * relay needs, the error shapes OpenAI answers with, and the replies (one JSON body, or server-sent-event chunks).
 */
import type { z } from "zod";
import { hashJson } from "../core";
import type { ChatRequest, ToolCallRequest, ToolSpec, Usage } from "../models/types";
import {
  type ChatRequestBody,
  chatRequestSchema,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  paramOf,
} from "./request-schema";

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

/** Fields that reach the backing model as the client sent them; the others are read here or not forwarded. */
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

function invalid(message: string, param: string | null = null, code: string | null = null): WireError {
  return new WireError(400, message, "invalid_request_error", param, code);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The first schema issue as OpenAI words it, naming the field. */
function issueError(issue: z.core.$ZodIssue): WireError {
  const param = paramOf(issue.path);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    return invalid(`Unrecognized request argument supplied: ${key}`, key, "unknown_parameter");
  }
  if (param === "model")
    return invalid("you must provide a model parameter", "model", "missing_required_parameter");
  if (issue.code === "invalid_union" && issue.path.at(-1) !== "role" && /^messages\[\d+\]$/.test(param))
    return invalid(issue.message, `${param}.role`, "invalid_value");
  if (issue.code === "invalid_type" && issue.input === undefined)
    return invalid(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");
  const code = issue.code === "invalid_type" ? "invalid_type" : "invalid_value";
  return invalid(`Invalid '${param}': ${issue.message}.`, param, code);
}

/** The body of POST /v1/chat/completions, checked; anything wrong is a 400 naming the field, as OpenAI's does. */
export function parseRequest(text: string): ParsedRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
        "library correctly. The OpenAI API expects a JSON payload.)",
    );
  }
  if (!isRecord(raw)) throw invalid("The request body must be a JSON object.");
  if (nestedDeeperThan(raw, MAX_JSON_DEPTH))
    throw invalid(
      `The request body is nested deeper than hsearch serve's limit of ${MAX_JSON_DEPTH} levels.`,
    );
  const parsed = chatRequestSchema.safeParse(raw);
  if (!parsed.success) throw issueError(parsed.error.issues[0] as z.core.$ZodIssue);
  const body = parsed.data;
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalid("Only n=1 is supported by hsearch serve.", "n", "unsupported_value");
  const stream = body.stream === true;
  return {
    model: body.model,
    messages: body.messages.map((message, index) => toMessage(message, `messages[${index}]`)),
    tools: (body.tools ?? []).map((tool) => ({
      name: tool.function.name,
      description: tool.function.description ?? "",
      parameters: tool.function.parameters ?? { type: "object", properties: {} },
    })),
    stream,
    streamUsage: stream && body.stream_options?.include_usage === true,
    fields: fieldsOf(body),
  };
}

function fieldsOf(body: ChatRequestBody): ParsedRequest["fields"] {
  const fields: ParsedRequest["fields"] = {};
  const max = body.max_completion_tokens ?? body.max_tokens;
  if (max !== undefined && max !== null) fields.max_tokens = max;
  if (typeof body.top_p === "number") fields.top_p = body.top_p;
  if (body.reasoning_effort) fields.reasoning_effort = body.reasoning_effort;
  const extra: Record<string, unknown> = {};
  for (const key of PASSED) if (body[key] !== undefined && body[key] !== null) extra[key] = body[key];
  if (Object.keys(extra).length > 0) fields.extra = extra;
  return fields;
}

type BodyMessage = ChatRequestBody["messages"][number];

function toMessage(message: BodyMessage, param: string): ClientMessage {
  const content = textOf(message.content);
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content };
    case "user":
      return { role: "user", content };
    case "assistant":
      return {
        role: "assistant",
        content,
        tool_calls: (message.tool_calls ?? []).map((call, i) => toCall(call, `${param}.tool_calls[${i}]`)),
      };
    case "tool":
      return { role: "tool", content, tool_call_id: message.tool_call_id };
  }
}

function textOf(content: BodyMessage["content"]): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}

function toCall(
  call: NonNullable<Extract<BodyMessage, { role: "assistant" }>["tool_calls"]>[number],
  param: string,
): ToolCallRequest {
  const args = call.function.arguments;
  const at = `${param}.function.arguments`;
  let parsed: unknown = {};
  if (typeof args === "string" && args.trim().length > 0) {
    try {
      parsed = JSON.parse(args);
    } catch {
      throw invalid(`${at} is not JSON.`, at, "invalid_type");
    }
    if (nestedDeeperThan(parsed, MAX_JSON_DEPTH))
      throw invalid(
        `${at} is nested deeper than hsearch serve's limit of ${MAX_JSON_DEPTH} levels.`,
        at,
        "invalid_value",
      );
  }
  return { id: call.id, name: call.function.name, arguments: isRecord(parsed) ? parsed : {} };
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
