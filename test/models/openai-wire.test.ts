import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { fromOpenAIBody, toOpenAIParams, wireSeed } from "../../src/models/openai-wire";
import type { ChatRequest } from "../../src/models/types";
import { simContext } from "../sim/context-fixture";

const request: ChatRequest = {
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "find order 7" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", name: "get_order", arguments: { id: 7 } }] },
    { role: "tool", tool_call_id: "c1", name: "get_order", content: '{"status":"pending"}' },
  ],
  tools: [{ name: "get_order", description: "Get an order", parameters: { type: "object" } }],
  temperature: 0.2,
  max_tokens: 64,
  seed: 3,
  repeat: 1,
  providerOptions: { sim: simContext("t") },
};

describe("toOpenAIParams", () => {
  it("maps messages, tools, temperature, max tokens and seed to the chat.completions format", () => {
    expect(toOpenAIParams("gpt-x", request, "max_completion_tokens")).toEqual({
      model: "gpt-x",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "find order 7" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "get_order", arguments: '{"id":7}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: '{"status":"pending"}' },
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_order", description: "Get an order", parameters: { type: "object" } },
        },
      ],
      temperature: 0.2,
      max_completion_tokens: 64,
      seed: wireSeed(3, 1),
    });
  });

  it("uses max_tokens when told, and omits tools, temperature and max tokens when absent", () => {
    const params = toOpenAIParams(
      "m",
      { messages: [{ role: "user", content: "hi" }], tools: [], seed: 1 },
      "max_tokens",
    );
    expect(Object.keys(params).sort()).toEqual(["messages", "model", "seed"]);
    expect(toOpenAIParams("m", request, "max_tokens").max_tokens).toBe(64);
  });

  it("never sends the simulator context", () => {
    expect(JSON.stringify(toOpenAIParams("m", request, "max_tokens"))).not.toContain("PROTECTED-CUE-TEXT");
  });

  it("derives a different wire seed per repeat, the same on replay", () => {
    expect(wireSeed(3, 0)).toBe(wireSeed(3, undefined));
    expect(wireSeed(3, 1)).not.toBe(wireSeed(3, 0));
    expect(wireSeed(3, 1)).toBe(wireSeed(3, 1));
  });
});

describe("fromOpenAIBody", () => {
  const body = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    model: "gpt-x-2025",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "tool_calls" }],
    usage: { prompt_tokens: 11, completion_tokens: 7 },
    ...extra,
  });

  it("reads text, tool calls with parsed arguments, usage, model and finish reason", () => {
    const parsed = fromOpenAIBody(
      body({
        content: "checking",
        tool_calls: [{ id: "c9", type: "function", function: { name: "get_order", arguments: '{"id":7}' } }],
      }),
      "openai:gpt-x",
    );
    expect(parsed).toEqual({
      content: "checking",
      tool_calls: [{ id: "c9", name: "get_order", arguments: { id: 7 } }],
      usage: { input_tokens: 11, output_tokens: 7 },
      model: "gpt-x-2025",
      finish_reason: "tool_calls",
    });
  });

  it("takes a refusal as the reply text, and missing usage as zero tokens", () => {
    const parsed = fromOpenAIBody(
      body({ content: null, refusal: "I can't help" }, { usage: undefined }),
      "s",
    );
    expect(parsed.content).toBe("I can't help");
    expect(parsed.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it.each([
    ["a body that is not an object", "<html>", "response body is the string"],
    ["no choices", { model: "m", choices: [] }, "choices is empty"],
    ["no message", { model: "m", choices: [{}] }, "choices[0].message is missing"],
    ["a custom tool call", body({ tool_calls: [{ id: "c", type: "custom", custom: {} }] }), 'type "custom"'],
    [
      "arguments that are not JSON",
      body({ tool_calls: [{ id: "c", type: "function", function: { name: "t", arguments: "{oops" } }] }),
      "are not valid JSON",
    ],
    [
      "an empty reply",
      body({ content: "" }),
      "empty reply: no content and no tool calls (finish_reason: tool_calls)",
    ],
    ["no model", { choices: [{ message: { content: "x" } }] }, "model is missing"],
  ])("rejects %s as model_reply", (_name, value, message) => {
    let caught: unknown;
    try {
      fromOpenAIBody(value, "openai:gpt-x");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HsearchError);
    expect((caught as HsearchError).code).toBe("model_reply");
    expect((caught as HsearchError).message).toContain("openai:gpt-x: ");
    expect((caught as HsearchError).message).toContain(message);
  });
});
