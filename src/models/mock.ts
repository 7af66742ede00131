/**
 * `MockChatModel` for tests across the project: scripted replies (a list, or a function of the request), and a
 * record of every request it saw. Replies go through the same validation as a real provider's, so an empty scripted
 * reply fails as `model_reply` just as a real one would.
 */
import { HsearchError } from "../core";
import type { ChatModel, ChatRequest, ChatResponse, ToolCallRequest } from "./types";
import { validateChatResponse } from "./validate-reply";

/** A reply to script: any fields of a response (the rest get defaults), or an error to throw. */
export type MockReply = Partial<ChatResponse> | Error;
export type MockScript =
  | readonly MockReply[]
  | ((request: ChatRequest, index: number) => MockReply | Promise<MockReply>);

export class MockChatModel implements ChatModel {
  readonly id: string;
  readonly provider: string;
  /** Every request, in order, as it was when received. */
  readonly requests: ChatRequest[] = [];
  private readonly script: MockScript;

  constructor(script: MockScript, options: { id?: string } = {}) {
    this.script = script;
    this.id = options.id ?? "mock:scripted";
    this.provider = this.id.split(":")[0] ?? "mock";
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const index = this.requests.length;
    this.requests.push(structuredClone(request));
    const reply = await this.replyFor(request, index);
    if (reply instanceof Error) throw reply;
    return validateChatResponse(
      {
        content: null,
        tool_calls: [],
        usage: { input_tokens: 0, output_tokens: 0 },
        model: this.id,
        ...reply,
      },
      this.id,
    );
  }

  private async replyFor(request: ChatRequest, index: number): Promise<MockReply> {
    if (typeof this.script === "function") return this.script(request, index);
    const list = this.script as readonly MockReply[];
    const reply = list[index];
    if (reply === undefined) {
      throw new HsearchError(
        "internal",
        `${this.id}: no scripted reply for request ${index + 1} (the script has ${list.length})`,
      );
    }
    return reply;
  }
}

export function textReply(
  text: string,
  usage = { input_tokens: 10, output_tokens: 5 },
): Partial<ChatResponse> {
  return { content: text, tool_calls: [], usage, finish_reason: "stop" };
}

export function toolCallReply(
  calls: Array<{ name: string; arguments: Record<string, unknown>; id?: string }>,
  content: string | null = null,
  usage = { input_tokens: 10, output_tokens: 5 },
): Partial<ChatResponse> {
  const toolCalls: ToolCallRequest[] = calls.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    name: call.name,
    arguments: call.arguments,
  }));
  return { content, tool_calls: toolCalls, usage, finish_reason: "tool_calls" };
}
