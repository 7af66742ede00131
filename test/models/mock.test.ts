import { describe, expect, it } from "vitest";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import type { ChatRequest } from "../../src/models/types";
import { hsearchFailureOf } from "../helpers/errors";

const request = (content: string): ChatRequest => ({
  messages: [{ role: "user", content }],
  tools: [],
  seed: 1,
});

describe("MockChatModel", () => {
  it("plays a list of replies in order and records each request as it was sent", async () => {
    const mock = new MockChatModel([textReply("one"), toolCallReply([{ name: "t", arguments: { a: 1 } }])], {
      id: "mock:list",
    });
    const sent = request("first");
    const first = await mock.generate(sent);
    sent.messages.push({ role: "user", content: "mutated later" });
    const second = await mock.generate(request("second"));

    expect(first).toMatchObject({ content: "one", tool_calls: [], model: "mock:list" });
    expect(second.tool_calls).toEqual([{ id: "call_1", name: "t", arguments: { a: 1 } }]);
    expect(mock.requests.map((r) => r.messages.length)).toEqual([1, 1]);
    expect(mock.provider).toBe("mock");
  });

  it("answers from a function of the request and its index", async () => {
    const mock = new MockChatModel((req, index) => {
      const last = req.messages[req.messages.length - 1];
      return textReply(`${index}:${last?.content}`);
    });
    expect((await mock.generate(request("a"))).content).toBe("0:a");
    expect((await mock.generate(request("b"))).content).toBe("1:b");
  });

  it("throws scripted errors, and fails loudly when the script runs out", async () => {
    const mock = new MockChatModel([new Error("scripted failure")]);
    await expect(mock.generate(request("x"))).rejects.toThrow("scripted failure");
    const error = await hsearchFailureOf(mock.generate(request("y")));
    expect(error.code).toBe("internal");
    expect(error.message).toContain("no scripted reply for request 2");
  });

  it("validates replies like a real provider: an empty one is a model_reply error", async () => {
    const mock = new MockChatModel([{ content: "" }]);
    const error = await hsearchFailureOf(mock.generate(request("x")));
    expect(error.code).toBe("model_reply");
  });
});
