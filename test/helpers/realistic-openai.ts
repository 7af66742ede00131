/**
 * A reply script that behaves like the real OpenAI API for gpt-5-named models, for end-to-end tests of the real-model
 * path: any temperature is rejected with OpenAI's own error body (as is max_tokens, for the models `rejects` names:
 * a reasoning model served under a deployment name), a prompt above `contextChars` gets
 * context_length_exceeded, the agent narrates before it acts, the LLM customer opens and answers, the LLM judge
 * and the proposer get replies of their own kind, and every reply states its usage (prompt-cache reads on the
 * agent's later turns, as OpenAI reports cached_tokens). An optional outage answers some requests with 429 every
 * time (a persistent infrastructure error). Combine with the fake server's fault plan for transient failures.
 */
import { costOf, loadPriceTable } from "../../src/models/prices";
import {
  type BilledTokens,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
} from "./fake-openai-server";

export interface RealisticOptions {
  /** Per model name: prompts longer than this (characters of the messages' JSON) get context_length_exceeded. */
  contextChars?: Record<string, number>;
  /** Requests for which the provider keeps answering 429 (checked after the temperature check). */
  outage?: (request: RecordedRequest) => boolean;
  /** The proposer proposes one harmless edit (the harness README) instead of answering without a proposal. */
  proposal?: boolean;
  /**
   * The model names whose requests are refused with OpenAI's 400 when they carry a temperature (default: gpt-5
   * names, as OpenAI does) or a max_tokens (default: none) — a reasoning model behind a deployment name.
   */
  rejects?: { temperature?: RegExp; max_tokens?: RegExp };
}

const NOTES_PROPOSAL = JSON.stringify({
  proposals: [{ rationale: "document the harness", edits: [{ path: "README.md", content: "# notes\n" }] }],
});

interface ChatBody {
  model: string;
  temperature?: number;
  max_tokens?: number;
  messages: Array<{ role: string; content: string | null }>;
}

const CUSTOMER_PROMPT = "You are playing a customer";

/** Which role sent a request, told by its prompt. */
export function roleOfRequest(request: RecordedRequest): "customer" | "judge" | "proposer" | "agent" {
  const body = request.body as ChatBody;
  const text = JSON.stringify(body.messages);
  if ((body.messages[0]?.content ?? "").startsWith(CUSTOMER_PROMPT)) return "customer";
  if (text.includes("label_correct")) return "judge";
  if ((body.messages[0]?.content ?? "").startsWith("You improve the harness")) return "proposer";
  return "agent";
}

function reply(content: string, promptChars: number, cachedShare = 0): ScriptedReply {
  const prompt = Math.ceil(promptChars / 4);
  return openaiCompletion({
    content,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: Math.ceil(content.length / 4) + 1,
      ...(cachedShare > 0 ? { cached_tokens: Math.floor(prompt * cachedShare) } : {}),
    },
  });
}

export function realisticOpenAI(options: RealisticOptions = {}) {
  return (request: RecordedRequest): ScriptedReply => {
    const body = request.body as ChatBody;
    const contextChars = options.contextChars?.[body.model] ?? Number.POSITIVE_INFINITY;
    const rejects = { temperature: /^gpt-5/, ...options.rejects };
    if (rejects.max_tokens?.test(body.model) && body.max_tokens !== undefined)
      return {
        status: 400,
        json: {
          error: {
            message:
              "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            type: "invalid_request_error",
            param: "max_tokens",
            code: "unsupported_parameter",
          },
        },
      };
    if (rejects.temperature.test(body.model) && body.temperature !== undefined)
      return {
        status: 400,
        json: {
          error: {
            message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
            type: "invalid_request_error",
            param: "temperature",
            code: "unsupported_value",
          },
        },
      };
    if (options.outage?.(request))
      return {
        status: 429,
        headers: { "retry-after": "0" },
        json: { error: { message: "fake outage: quota exhausted for this project", type: "rate_limit" } },
      };
    const size = JSON.stringify(body.messages).length;
    if (size > contextChars)
      return {
        status: 400,
        json: {
          error: {
            message: `This model's maximum context length is ${contextChars} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        },
      };
    const role = roleOfRequest(request);
    if (role === "customer") {
      const turns = body.messages.filter((m) => m.role === "assistant").length;
      // The opening states the scenario's request, as a customer would: its length varies by task.
      if (turns === 0) {
        const scenario = /Scenario:\n([\s\S]*?)\n\nWhat you know/.exec(body.messages[0]?.content ?? "");
        return reply(`Hi. ${scenario?.[1] ?? "I need help with my order."}`, size);
      }
      const agentSaid = body.messages.at(-1)?.content ?? "";
      return reply(
        agentSaid.startsWith("Let me") ? "Sure, take your time." : "Okay, thanks. ###STOP###",
        size,
      );
    }
    if (role === "judge")
      return reply(
        '{"recognized": false, "label_correct": true, "reason_matches": false, "rationale": "generic refusal"}',
        size,
      );
    if (role === "proposer")
      return reply(options.proposal ? NOTES_PROPOSAL : "I have no proposal this round.", size);
    const agentTurns = body.messages.filter((m) => m.role === "assistant").length;
    return agentTurns === 0
      ? reply("Let me look up your account, one moment.", size)
      : reply("I cannot help with this request.", size, 0.5);
  };
}

/** What the server's bill for `model` costs at the price table's `openai:<model>` price. */
export function expectedUsd(model: string, bill: BilledTokens | undefined): number {
  return costOf(loadPriceTable(), `openai:${model}`, {
    input_tokens: bill?.input_tokens ?? 0,
    output_tokens: bill?.output_tokens ?? 0,
    cache_read_tokens: bill?.cache_read_tokens ?? 0,
    cache_write_tokens: bill?.cache_write_tokens ?? 0,
  }).usd;
}
