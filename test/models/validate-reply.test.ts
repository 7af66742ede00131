import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { parseToolArguments, validateChatResponse } from "../../src/models/validate-reply";

function replyErrorOf(run: () => unknown): HsearchError {
  try {
    run();
  } catch (error) {
    if (error instanceof HsearchError) return error;
    throw error;
  }
  throw new Error("expected a model_reply error, got success");
}

const good = {
  content: "hello",
  tool_calls: [{ id: "c1", name: "lookup", arguments: { order: "#1" } }],
  usage: { input_tokens: 3, output_tokens: 2 },
  model: "m",
  finish_reason: "stop",
};

describe("validateChatResponse", () => {
  it("returns a clean copy of a good response", () => {
    expect(validateChatResponse({ ...good, extra: 1 }, "src")).toEqual(good);
  });

  it.each([
    [
      "no content and no tool calls",
      { ...good, content: null, tool_calls: [] },
      "src: empty reply: no content and no tool calls (finish_reason: stop)",
    ],
    ["whitespace only", { ...good, content: "  \n", tool_calls: [] }, "src: empty reply"],
    ["content of the wrong type", { ...good, content: 5 }, "content is a number, not a string or null"],
    [
      "tool_calls missing",
      { ...good, tool_calls: undefined },
      "malformed body: tool_calls is missing, not an array",
    ],
    [
      "arguments an array",
      { ...good, tool_calls: [{ id: "c", name: "t", arguments: [1] }] },
      "arguments of tool call 't' are an array, not a JSON object",
    ],
    [
      "empty tool name",
      { ...good, tool_calls: [{ id: "c", name: "", arguments: {} }] },
      "tool call 0 has an empty name",
    ],
    [
      "negative tokens",
      { ...good, usage: { input_tokens: -1, output_tokens: 0 } },
      "usage.input_tokens is a number, not a token count",
    ],
    ["not an object", "text", 'malformed body: response is the string "text", not an object'],
  ])("rejects %s as model_reply", (_name, value, message) => {
    const error = replyErrorOf(() => validateChatResponse(value, "src"));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain(message);
  });

  it("accepts tool calls without text, and text without tool calls", () => {
    expect(validateChatResponse({ ...good, content: null }, "src").tool_calls).toHaveLength(1);
    expect(validateChatResponse({ ...good, tool_calls: [] }, "src").content).toBe("hello");
  });
});

describe("parseToolArguments", () => {
  it("parses a JSON object string or takes an object as is", () => {
    expect(parseToolArguments('{"a":1}', "t", "src")).toEqual({ a: 1 });
    expect(parseToolArguments({ a: 1 }, "t", "src")).toEqual({ a: 1 });
  });

  it.each([
    ['{"a":', "are not valid JSON"],
    ["[1,2]", "are an array, not a JSON object"],
    ['"text"', 'are the string "text", not a JSON object'],
    ["null", "are null, not a JSON object"],
    ["", "are not valid JSON"],
  ])("rejects %j", (raw, message) => {
    const error = replyErrorOf(() => parseToolArguments(raw, "t", "src"));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain(`arguments of tool call 't' ${message}`);
  });
});
