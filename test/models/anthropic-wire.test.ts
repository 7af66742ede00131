import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  fromAnthropicBody,
  toAnthropicConversation,
  toAnthropicParams,
} from "../../src/models/anthropic-wire";
import type { ChatMessage, ChatRequest } from "../../src/models/types";
import { simContext } from "../sim/context-fixture";

const conversation: ChatMessage[] = [
  { role: "system", content: "policy" },
  { role: "system", content: "protocols" },
  { role: "user", content: "exchange my lamp" },
  {
    role: "assistant",
    content: "Let me look.",
    tool_calls: [
      { id: "t1", name: "get_order", arguments: { id: 1 } },
      { id: "t2", name: "get_user", arguments: { id: "u" } },
    ],
  },
  { role: "tool", tool_call_id: "t1", name: "get_order", content: "order 1" },
  { role: "tool", tool_call_id: "t2", name: "get_user", content: "user u" },
  { role: "system", content: "Check your work." },
  { role: "assistant", content: "Done." },
];

describe("toAnthropicConversation", () => {
  it("lifts leading system messages into system and merges tool results into one user turn", () => {
    expect(toAnthropicConversation(conversation)).toEqual({
      system: "policy\n\nprotocols",
      messages: [
        { role: "user", content: [{ type: "text", text: "exchange my lamp" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "t1", name: "get_order", input: { id: 1 } },
            { type: "tool_use", id: "t2", name: "get_user", input: { id: "u" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "order 1" },
            { type: "tool_result", tool_use_id: "t2", content: "user u" },
            { type: "text", text: "Check your work." },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
      ],
    });
  });

  it("sends an assistant turn with only tool calls without an empty text block", () => {
    const { messages } = toAnthropicConversation([
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "t", name: "x", arguments: {} }] },
    ]);
    expect(messages[1]?.content).toEqual([{ type: "tool_use", id: "t", name: "x", input: {} }]);
  });

  it("refuses an assistant message with nothing in it, naming it", () => {
    expect(() =>
      toAnthropicConversation([
        { role: "user", content: "go" },
        { role: "assistant", content: null },
      ]),
    ).toThrow("anthropic: assistant message 1 has no text and no tool calls");
  });
});

describe("toAnthropicParams", () => {
  const request: ChatRequest = {
    messages: conversation.slice(0, 3),
    tools: [
      { name: "get_order", description: "Get an order", parameters: { type: "object", properties: {} } },
    ],
    temperature: 0,
    seed: 4,
    providerOptions: { sim: simContext("t") },
  };

  it("sends tools as input_schema, a default max_tokens, and never the simulator context", () => {
    const params = toAnthropicParams("claude-x", request);
    expect(params).toEqual({
      model: "claude-x",
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      system: "policy\n\nprotocols",
      messages: [{ role: "user", content: [{ type: "text", text: "exchange my lamp" }] }],
      tools: [
        { name: "get_order", description: "Get an order", input_schema: { type: "object", properties: {} } },
      ],
      temperature: 0,
    });
    expect(JSON.stringify(params)).not.toContain("PROTECTED-CUE-TEXT");
    expect(toAnthropicParams("claude-x", { ...request, max_tokens: 10 }).max_tokens).toBe(10);
  });
});

describe("fromAnthropicBody", () => {
  const body = (content: unknown[], extra: Record<string, unknown> = {}) => ({
    id: "msg",
    type: "message",
    role: "assistant",
    model: "claude-x-2025",
    content,
    stop_reason: "tool_use",
    usage: {
      input_tokens: 20,
      output_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 3,
    },
    ...extra,
  });

  it("reads text blocks, tool_use blocks, stop reason and usage (cache tokens counted as input)", () => {
    const parsed = fromAnthropicBody(
      body([
        { type: "thinking", thinking: "hmm", signature: "s" },
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_1", name: "get_order", input: { id: 1 } },
        { type: "text", text: "More." },
      ]),
      "anthropic:claude-x",
    );
    expect(parsed).toEqual({
      content: "Looking.\nMore.",
      tool_calls: [{ id: "toolu_1", name: "get_order", arguments: { id: 1 } }],
      usage: { input_tokens: 123, output_tokens: 5, cache_read_tokens: 100, cache_write_tokens: 3 },
      model: "claude-x-2025",
      finish_reason: "tool_use",
    });
  });

  it.each([
    [
      "no content blocks",
      body([], { stop_reason: "max_tokens" }),
      "empty reply: no content and no tool calls (finish_reason: max_tokens)",
    ],
    [
      "tool input that is not an object",
      body([{ type: "tool_use", id: "t", name: "x", input: "str" }]),
      `arguments of tool call 'x' are the string "str", not a JSON object`,
    ],
    [
      "an unknown block type",
      body([{ type: "server_tool_use", id: "s" }]),
      'content[0] has type "server_tool_use"',
    ],
    ["content that is not a list", { model: "m", content: "hi" }, "content is the string"],
  ])("rejects %s as model_reply", (_name, value, message) => {
    let caught: unknown;
    try {
      fromAnthropicBody(value, "anthropic:claude-x");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HsearchError);
    expect((caught as HsearchError).code).toBe("model_reply");
    expect((caught as HsearchError).message).toContain(message);
  });
});
