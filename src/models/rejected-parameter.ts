/**
 * A parameter the provider refused (after LiteLLM's `drop_params`): a reasoning model served under a deployment name
 * (`prod-gpt-5-mini` on Azure, `smart` behind a gateway) is not recognised by its name, so it is sent a temperature
 * or `max_tokens` it rejects with a 400 naming that parameter. Pure: `rejectedParameterOf` reads the error body the
 * provider answered, `withoutRejected` computes the request to send instead. The layer that acts on them is
 * parameter-fallback.ts.
 */
import type { ParameterFallbacks } from "./provider";
import type { ChatRequest } from "./types";

/** What a 400 named: the wire parameter to leave out, or to send under `replacement`'s name instead. */
export interface ParameterRejection {
  /** The parameter as the wire spells it (`temperature`, `max_tokens`, `parallel_tool_calls`, …). */
  parameter: string;
  /** The parameter the server asked for in its place (`max_completion_tokens`), or null: leave it out. */
  replacement: string | null;
  /** The server's message, for the user (secrets already redacted by the caller). */
  message: string;
}

/** OpenAI's error codes for a parameter the model does not take (`invalid_value` is a bad value, not one of them). */
const UNSUPPORTED_CODES = new Set(["unsupported_parameter", "unsupported_value", "unknown_parameter"]);

const NAME = String.raw`[A-Za-z_][\w.]*`;
const QUOTE = "[`'\"]?";
/**
 * Messages that name one parameter the model does not take, as OpenAI, Azure OpenAI and Anthropic word them (and as
 * gateways such as LiteLLM pass them on inside their own message). Each captures the parameter.
 */
const NAMING_MESSAGES: readonly RegExp[] = [
  // OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
  // OpenAI: "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported."
  new RegExp(`Unsupported (?:parameter|value): '(${NAME})'`),
  // Azure OpenAI: "Unknown parameter: 'reasoning_effort'."
  new RegExp(`Unknown parameter: '(${NAME})'`),
  // Azure OpenAI: "Unrecognized request argument supplied: reasoning_effort"
  new RegExp(`Unrecognized request arguments? supplied: (${NAME})`),
  // Anthropic: "`temperature` is deprecated for this model."
  new RegExp(`${QUOTE}(${NAME})${QUOTE} is deprecated for this model`),
  // Compatible servers: "'top_p' is not supported with this model" / "… by this model"
  new RegExp(`${QUOTE}(${NAME})${QUOTE} is not supported (?:with|for|by) this model`),
];

/** Anthropic: "`temperature` and `top_p` cannot both be specified for this model. Please use only one." */
const EITHER_MESSAGE = new RegExp(
  `${QUOTE}(${NAME})${QUOTE} and ${QUOTE}(${NAME})${QUOTE} cannot both be specified`,
);

/** "Use 'max_completion_tokens' instead." */
const REPLACEMENT_MESSAGE = new RegExp(`[Uu]se ${QUOTE}(${NAME})${QUOTE} instead`);

const MESSAGE_CHARS = 300;

/**
 * The parameter a provider's 400 names as one the model does not take, or null when it names none (a 400 about
 * anything else stays an error). `body` is the parsed error body (OpenAI's `{error: {message, param, code}}`, or its
 * inner object as the OpenAI SDK keeps it; Anthropic's `{type: "error", error: {type, message}}`) or its text.
 * When two parameters cannot be sent together (Anthropic's temperature and top_p), the second is named: the
 * harness's temperature stays.
 */
export function rejectedParameterOf(status: number | undefined, body: unknown): ParameterRejection | null {
  if (status !== 400) return null;
  const objects = errorObjects(body);
  const messages = [
    ...objects.flatMap((object) => (typeof object.message === "string" ? [object.message] : [])),
    ...(typeof body === "string" ? [body] : []),
  ];
  const message = (messages[0] ?? "").slice(0, MESSAGE_CHARS);
  const replacementIn = (text: string) => REPLACEMENT_MESSAGE.exec(text)?.[1] ?? null;
  for (const object of objects) {
    if (typeof object.param !== "string" || !UNSUPPORTED_CODES.has(String(object.code))) continue;
    const text = typeof object.message === "string" ? object.message : "";
    return { parameter: object.param, replacement: replacementIn(text), message };
  }
  for (const text of messages) {
    const either = EITHER_MESSAGE.exec(text);
    if (either) return { parameter: either[2] as string, replacement: null, message };
    for (const pattern of NAMING_MESSAGES) {
      const named = pattern.exec(text)?.[1];
      if (named) return { parameter: named, replacement: replacementIn(text), message };
    }
  }
  return null;
}

/** The body itself and its `error` member, where they are objects. */
function errorObjects(body: unknown): Array<Record<string, unknown>> {
  if (body === null || typeof body !== "object") return [];
  const root = body as Record<string, unknown>;
  const inner = root.error;
  return inner !== null && typeof inner === "object" ? [inner as Record<string, unknown>, root] : [root];
}

/** OpenAI's two spellings of the output token limit; each is the other's replacement when a server refuses one. */
const TOKEN_LIMIT_FIELDS = ["max_tokens", "max_completion_tokens"] as const;

/**
 * The request without the rejected parameter (or with it under its replacement's name), or null when that changes
 * nothing that is sent: a parameter this request does not carry, or one it cannot go without (the messages, the
 * tools, Anthropic's required max_tokens). Which wire field the request's `max_tokens` goes out as is the request's
 * `max_tokens_field` (OpenAI only).
 */
export function withoutRejected(
  request: ChatRequest,
  rejection: Pick<ParameterRejection, "parameter" | "replacement">,
  fallbacks: ParameterFallbacks,
): ChatRequest | null {
  const { parameter, replacement } = rejection;
  if (request.extra && Object.hasOwn(request.extra, parameter)) {
    const { [parameter]: _dropped, ...extra } = request.extra;
    const out: ChatRequest = { ...request, extra };
    if (replacement !== null) (out.extra as Record<string, unknown>)[replacement] = request.extra[parameter];
    return out;
  }
  const out: ChatRequest = { ...request };
  switch (parameter) {
    case "temperature":
    case "top_p":
    case "reasoning_effort":
      if (request[parameter] === undefined) return null;
      delete out[parameter];
      return out;
    case "thinking":
      if (request.thinking_budget === undefined) return null;
      delete out.thinking_budget;
      return out;
    case "seed":
      if (request.send_seed === false || !fallbacks.seed) return null;
      out.send_seed = false;
      return out;
    case "max_tokens":
    case "max_completion_tokens": {
      // Some providers require max_tokens (Anthropic); OpenAI-compatible servers take one spelling or the other.
      if (!fallbacks.tokenLimitField || request.max_tokens === undefined) return null;
      const other = TOKEN_LIMIT_FIELDS.find(
        (field) => field !== parameter,
      ) as (typeof TOKEN_LIMIT_FIELDS)[number];
      const wanted = replacement ?? other;
      if (wanted !== other || request.max_tokens_field === wanted) return null;
      out.max_tokens_field = wanted;
      return out;
    }
    default:
      return null;
  }
}
