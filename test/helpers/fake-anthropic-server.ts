/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the Anthropic messages wire format, for end-to-end tests of
 * anything that calls `anthropic:<model>`: point ANTHROPIC_BASE_URL (or the baseURL option) at `server.baseURL`.
 * Same scripting, recording, in-flight counting, fault plan and bill as the OpenAI fake.
 */

import {
  type FakeHttpServer,
  type FakeServerOptions,
  type ReplyScript,
  type ScriptedReply,
  startFakeHttpServer,
} from "./fake-openai-server";
import { firstToolName } from "./fault-plan";

export type {
  Bill,
  FakeServerOptions,
  RecordedRequest,
  ReplyScript,
  ScriptedReply,
} from "./fake-openai-server";

export interface FakeAnthropicServer extends FakeHttpServer {
  /** `http://127.0.0.1:<port>`, the value for ANTHROPIC_BASE_URL (the SDK adds /v1/messages). */
  baseURL: string;
}

/** With no script, every request gets the answer "ok". */
export async function startFakeAnthropicServer(
  script: ReplyScript = () => anthropicMessage({ text: "ok" }),
  options: FakeServerOptions = {},
): Promise<FakeAnthropicServer> {
  const server = await startFakeHttpServer(script, {
    ...options,
    wire: {
      usageOf(json) {
        const usage = (json as { usage?: Record<string, unknown> } | null)?.usage;
        if (!usage || typeof usage.input_tokens !== "number") return null;
        // Anthropic's input_tokens leaves out cache reads and writes; the bill counts every prompt token.
        const read = Number(usage.cache_read_input_tokens ?? 0);
        const write = Number(usage.cache_creation_input_tokens ?? 0);
        return {
          input_tokens: usage.input_tokens + read + write,
          output_tokens: Number(usage.output_tokens ?? 0),
          cache_read_tokens: read,
          cache_write_tokens: write,
        };
      },
      faults: {
        error: (status, message, headers) => anthropicError(status, message, headers),
        emptyChoices: () => anthropicMessage({}),
        malformedToolArgs: (request) =>
          anthropicMessage({ toolUses: [{ name: firstToolName(request), input: '{"not json' }] }),
      },
    },
  });
  return Object.assign(server, { baseURL: server.url });
}

export interface AnthropicMessageSpec {
  text?: string;
  toolUses?: Array<{ id?: string; name: string; input: unknown }>;
  usage?: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  model?: string;
  stopReason?: string;
  status?: number;
  delayMs?: number;
}

/** A messages API response body, as Anthropic sends it. */
export function anthropicMessage(spec: AnthropicMessageSpec): ScriptedReply {
  const content: unknown[] = [];
  if (spec.text !== undefined) content.push({ type: "text", text: spec.text });
  (spec.toolUses ?? []).forEach((use, index) => {
    content.push({ type: "tool_use", id: use.id ?? `toolu_${index + 1}`, name: use.name, input: use.input });
  });
  const toolUse = (spec.toolUses ?? []).length > 0;
  return {
    status: spec.status,
    delayMs: spec.delayMs,
    json: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model: spec.model ?? "claude-fake",
      content,
      stop_reason: spec.stopReason ?? (toolUse ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage: spec.usage ?? { input_tokens: 20, output_tokens: 4 },
    },
  };
}

/** An Anthropic-style error response. */
export function anthropicError(
  status: number,
  message: string,
  headers?: Record<string, string>,
): ScriptedReply {
  return { status, headers, json: { type: "error", error: { type: "fake_error", message } } };
}
