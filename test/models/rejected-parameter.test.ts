/**
 * Reading which parameter a provider's 400 names, on the error bodies OpenAI, Azure OpenAI, Anthropic and a LiteLLM
 * gateway really send (as users reported them), and what the request becomes without it.
 */
import { describe, expect, it } from "vitest";
import { anthropicProvider } from "../../src/models/anthropic-provider";
import { openaiProvider } from "../../src/models/openai-provider";
import { rejectedParameterOf, withoutRejected } from "../../src/models/rejected-parameter";
import type { ChatRequest } from "../../src/models/types";

const openai = (message: string, param: string | null, code: string | null) => ({
  error: { message, type: "invalid_request_error", param, code },
});

describe("rejectedParameterOf: the parameter a 400 names", () => {
  it.each([
    [
      "OpenAI: a temperature other than the default",
      openai(
        "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
        "temperature",
        "unsupported_value",
      ),
      { parameter: "temperature", replacement: null },
    ],
    [
      "OpenAI: max_tokens on a reasoning model",
      openai(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "max_tokens",
        "unsupported_parameter",
      ),
      { parameter: "max_tokens", replacement: "max_completion_tokens" },
    ],
    [
      "OpenAI o3-mini: any temperature",
      openai(
        "Unsupported parameter: 'temperature' is not supported with this model.",
        "temperature",
        "unsupported_parameter",
      ),
      { parameter: "temperature", replacement: null },
    ],
    [
      "OpenAI o-series: parallel_tool_calls",
      openai(
        "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
        "parallel_tool_calls",
        "unsupported_parameter",
      ),
      { parameter: "parallel_tool_calls", replacement: null },
    ],
    [
      "Azure OpenAI: an unknown parameter",
      openai("Unknown parameter: 'reasoning_effort'.", "reasoning_effort", "unknown_parameter"),
      { parameter: "reasoning_effort", replacement: null },
    ],
    [
      "Azure OpenAI: an unrecognized argument, named only in the message",
      {
        error: {
          message: "Unrecognized request argument supplied: reasoning_effort",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      },
      { parameter: "reasoning_effort", replacement: null },
    ],
    [
      "a gateway that passes OpenAI's message on with its own code",
      {
        error: {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          code: "invalid_request_body",
        },
      },
      { parameter: "max_tokens", replacement: "max_completion_tokens" },
    ],
    [
      "Anthropic: temperature on a model that no longer takes it",
      {
        type: "error",
        error: { type: "invalid_request_error", message: "`temperature` is deprecated for this model." },
        request_id: "req_011CacUdWDiKun1GiRiNNcR7",
      },
      { parameter: "temperature", replacement: null },
    ],
    [
      "Anthropic: temperature and top_p together (top_p goes, the harness's temperature stays)",
      {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
        },
      },
      { parameter: "top_p", replacement: null },
    ],
    [
      "LiteLLM in front of Anthropic: the provider's body inside the gateway's message",
      {
        error: {
          message:
            'litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` is deprecated for this model."},"request_id":"req_011CabJ9ACVfYuqhf5QDYJdP"}\'',
          type: null,
          param: null,
          code: "400",
        },
      },
      { parameter: "temperature", replacement: null },
    ],
  ])("%s", (_what, body, expected) => {
    const rejection = rejectedParameterOf(400, body);
    expect(rejection).toMatchObject(expected);
    expect(rejection?.message.length).toBeGreaterThan(0);
  });

  it("reads the OpenAI SDK's inner error object and a body that came as text", () => {
    const inner = openai(
      "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
      "temperature",
      "unsupported_value",
    ).error;
    expect(rejectedParameterOf(400, inner)).toEqual({
      parameter: "temperature",
      replacement: null,
      message: inner.message,
    });
    expect(
      rejectedParameterOf(400, "400 Unsupported parameter: 'top_p' is not supported with this model."),
    ).toMatchObject({ parameter: "top_p" });
  });

  it.each([
    [
      "a content filter (its param is the prompt, not a parameter to drop)",
      openai(
        "The response was filtered due to the prompt triggering the content management policy.",
        "prompt",
        "content_filter",
      ),
    ],
    [
      "a context overflow",
      openai(
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        "messages",
        "context_length_exceeded",
      ),
    ],
    [
      "a bad value the user configured (not an unsupported parameter)",
      openai(
        "Invalid value: 'none'. Supported values are: 'low', 'medium', and 'high'.",
        "reasoning_effort",
        "invalid_value",
      ),
    ],
    ["a 400 that names nothing", openai("Invalid request.", null, null)],
    ["a body that is not an error object", "Bad Request"],
    ["no body", undefined],
  ])("names nothing for %s", (_what, body) => {
    expect(rejectedParameterOf(400, body)).toBeNull();
  });

  it("reads only 400s: the same words under another status are not a rejected parameter", () => {
    const body = openai(
      "Unsupported parameter: 'temperature' is not supported with this model.",
      "temperature",
      "unsupported_parameter",
    );
    for (const status of [401, 404, 429, 500, undefined])
      expect(rejectedParameterOf(status, body)).toBeNull();
  });
});

describe("withoutRejected: the request to send instead", () => {
  const request: ChatRequest = {
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    temperature: 0.2,
    top_p: 0.9,
    max_tokens: 500,
    reasoning_effort: "low",
    extra: { parallel_tool_calls: false, tool_choice: "auto" },
    seed: 1,
  };

  it("leaves out a sampling parameter, a reasoning effort, a seed, or an extra member", () => {
    expect(
      withoutRejected(request, { parameter: "temperature", replacement: null }, openaiProvider.fallbacks),
    ).not.toHaveProperty("temperature");
    expect(
      withoutRejected(request, { parameter: "top_p", replacement: null }, anthropicProvider.fallbacks),
    ).not.toHaveProperty("top_p");
    expect(
      withoutRejected(
        request,
        { parameter: "reasoning_effort", replacement: null },
        openaiProvider.fallbacks,
      ),
    ).not.toHaveProperty("reasoning_effort");
    expect(
      withoutRejected(request, { parameter: "seed", replacement: null }, openaiProvider.fallbacks)?.send_seed,
    ).toBe(false);
    expect(
      withoutRejected(
        request,
        { parameter: "parallel_tool_calls", replacement: null },
        openaiProvider.fallbacks,
      )?.extra,
    ).toEqual({
      tool_choice: "auto",
    });
    // The caller's request is never changed.
    expect(request.temperature).toBe(0.2);
    expect(request.extra).toEqual({ parallel_tool_calls: false, tool_choice: "auto" });
  });

  it("sends OpenAI's token limit under the other spelling, as asked or by default", () => {
    expect(
      withoutRejected(
        request,
        { parameter: "max_tokens", replacement: "max_completion_tokens" },
        openaiProvider.fallbacks,
      ),
    ).toMatchObject({ max_tokens: 500, max_tokens_field: "max_completion_tokens" });
    expect(
      withoutRejected(
        request,
        { parameter: "max_completion_tokens", replacement: null },
        openaiProvider.fallbacks,
      ),
    ).toMatchObject({
      max_tokens: 500,
      max_tokens_field: "max_tokens",
    });
  });

  it("changes nothing (null) for what the request does not carry or cannot go without", () => {
    const bare: ChatRequest = { messages: [{ role: "user", content: "hi" }], tools: [], seed: 1 };
    expect(
      withoutRejected(bare, { parameter: "temperature", replacement: null }, openaiProvider.fallbacks),
    ).toBeNull();
    expect(
      withoutRejected(bare, { parameter: "max_tokens", replacement: null }, openaiProvider.fallbacks),
    ).toBeNull();
    // Anthropic requires max_tokens; the messages and tools are the call itself.
    expect(
      withoutRejected(request, { parameter: "max_tokens", replacement: null }, anthropicProvider.fallbacks),
    ).toBeNull();
    expect(
      withoutRejected(request, { parameter: "messages", replacement: null }, openaiProvider.fallbacks),
    ).toBeNull();
    expect(
      withoutRejected(request, { parameter: "tools", replacement: null }, openaiProvider.fallbacks),
    ).toBeNull();
    // Already sent under the wanted name: asking again would repeat the same call.
    const switched = { ...request, max_tokens_field: "max_completion_tokens" as const };
    expect(
      withoutRejected(
        switched,
        { parameter: "max_tokens", replacement: "max_completion_tokens" },
        openaiProvider.fallbacks,
      ),
    ).toBeNull();
  });
});
