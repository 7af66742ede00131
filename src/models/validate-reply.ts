/**
 * What counts as a usable model reply. Providers build their `ChatResponse` through these checks, so an empty reply,
 * tool arguments that are not a JSON object, or a body of the wrong shape become `HsearchError("model_reply")` with
 * a message saying what was wrong — never a silent success. The retry layer re-asks a bounded number of times.
 */
import { HsearchError } from "../core";
import type { ChatResponse, ToolCallRequest, Usage } from "./types";

export function replyError(source: string, problem: string): HsearchError {
  return new HsearchError("model_reply", `${source}: ${problem}`);
}

/**
 * Parse a reply body with the wire's `parse`; when it is unusable (a model_reply error) but states its usage (read by
 * `usageOf` from the body's object), the error carries that usage: the provider billed the call all the same, so the
 * usage meter counts it (`billedUsageOf`).
 */
export function parseBilled(
  body: unknown,
  source: string,
  parse: (body: unknown, source: string) => ChatResponse,
  usageOf: (root: Record<string, unknown>, source: string) => Usage,
): ChatResponse {
  try {
    return parse(body, source);
  } catch (error) {
    if (error instanceof HsearchError && error.code === "model_reply") {
      let usage: Usage | undefined;
      try {
        usage = usageOf(requireObject(body, "response body", source), source);
      } catch {
        // no readable usage: nothing to count
      }
      if (usage && usage.input_tokens + usage.output_tokens > 0) billed.set(error, usage);
    }
    throw error;
  }
}

const billed = new WeakMap<Error, Usage>();

/** The usage an unusable reply stated (see parseBilled), if any. */
export function billedUsageOf(error: unknown): Usage | undefined {
  return error instanceof Error ? billed.get(error) : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The value as an object, or a model_reply error naming `what` (e.g. "response body", "choices[0].message"). */
export function requireObject(value: unknown, what: string, source: string): Record<string, unknown> {
  if (!isPlainObject(value))
    throw replyError(source, `malformed body: ${what} is ${describe(value)}, not an object`);
  return value;
}

/** An optional block of the body: absent (or null) reads as an empty object, anything else must be an object. */
export function optionalObject(value: unknown, what: string, source: string): Record<string, unknown> {
  return value === undefined || value === null ? {} : requireObject(value, what, source);
}

export function requireArray(value: unknown, what: string, source: string): unknown[] {
  if (!Array.isArray(value))
    throw replyError(source, `malformed body: ${what} is ${describe(value)}, not an array`);
  return value;
}

export function requireString(value: unknown, what: string, source: string): string {
  if (typeof value !== "string")
    throw replyError(source, `malformed body: ${what} is ${describe(value)}, not a string`);
  return value;
}

/** A token count: absent counts as 0 (many compatible servers omit usage), anything else must be a count. */
export function tokenCount(value: unknown, what: string, source: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw replyError(source, `malformed body: ${what} is ${describe(value)}, not a token count`);
  }
  return value;
}

/** Tool-call arguments as the wire gives them (a JSON string, or an already parsed value) → a plain object. */
export function parseToolArguments(raw: unknown, toolName: string, source: string): Record<string, unknown> {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw replyError(source, `arguments of tool call '${toolName}' are not valid JSON: ${clip(raw)}`);
    }
  }
  return requireToolArguments(value, toolName, source);
}

/** Tool-call arguments that the wire already gives as a value (Anthropic's `input`) must be a plain object. */
export function requireToolArguments(
  value: unknown,
  toolName: string,
  source: string,
): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw replyError(
      source,
      `arguments of tool call '${toolName}' are ${describe(value)}, not a JSON object`,
    );
  }
  return value;
}

/** Check a whole response (from a provider, the cache or a mock) and return a clean copy. */
export function validateChatResponse(value: unknown, source: string): ChatResponse {
  const body = requireObject(value, "response", source);
  const content = body.content;
  if (content !== null && typeof content !== "string") {
    throw replyError(source, `malformed body: content is ${describe(content)}, not a string or null`);
  }
  const toolCalls: ToolCallRequest[] = requireArray(body.tool_calls, "tool_calls", source).map(
    (call, index) => {
      const entry = requireObject(call, `tool_calls[${index}]`, source);
      const name = requireString(entry.name, `tool_calls[${index}].name`, source);
      const id = requireString(entry.id, `tool_calls[${index}].id`, source);
      if (name.length === 0) throw replyError(source, `tool call ${index} has an empty name`);
      return { id, name, arguments: parseToolArguments(entry.arguments, name, source) };
    },
  );
  const usage = requireObject(body.usage, "usage", source);
  const finishReason = body.finish_reason;
  if (finishReason !== undefined && typeof finishReason !== "string") {
    throw replyError(source, `malformed body: finish_reason is ${describe(finishReason)}, not a string`);
  }
  const reply = {
    content,
    tool_calls: toolCalls,
    usage: {
      input_tokens: tokenCount(usage.input_tokens, "usage.input_tokens", source),
      output_tokens: tokenCount(usage.output_tokens, "usage.output_tokens", source),
      ...promptCacheTokens(usage, source),
    },
  };
  return usableResponse(body, source, reply, finishReason);
}

/** The optional prompt-cache counts of a cached response's usage (present only when the provider reported them). */
function promptCacheTokens(usage: Record<string, unknown>, source: string) {
  const out: { cache_read_tokens?: number; cache_write_tokens?: number } = {};
  if (usage.cache_read_tokens !== undefined)
    out.cache_read_tokens = tokenCount(usage.cache_read_tokens, "usage.cache_read_tokens", source);
  if (usage.cache_write_tokens !== undefined)
    out.cache_write_tokens = tokenCount(usage.cache_write_tokens, "usage.cache_write_tokens", source);
  return out;
}

/** A reply with neither text nor a tool call gives the agent loop nothing to act on. */
/**
 * A wire's parsed reply as our response: the model named by the body's `model`, the stop reason kept when the wire
 * gave one, and the whole checked usable (assertNotEmpty).
 */
export function usableResponse(
  root: Record<string, unknown>,
  source: string,
  reply: Pick<ChatResponse, "content" | "tool_calls" | "usage">,
  finishReason: unknown,
): ChatResponse {
  const response: ChatResponse = { ...reply, model: requireString(root.model, "model", source) };
  if (typeof finishReason === "string") response.finish_reason = finishReason;
  assertNotEmpty(response, source);
  return response;
}

export function assertNotEmpty(response: ChatResponse, source: string): void {
  if (response.tool_calls.length > 0) return;
  if (response.content !== null && response.content.trim().length > 0) return;
  const why = response.finish_reason ? ` (finish_reason: ${response.finish_reason})` : "";
  throw replyError(source, `empty reply: no content and no tool calls${why}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${clip(JSON.stringify(value))}`;
  return `a ${typeof value}`;
}

function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
