import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import {
  type FakeOpenAIServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { retailSubset } from "../helpers/task-subset";

/**
 * A server that behaves like the real API for a gpt-5-named model: any temperature is rejected with OpenAI's own
 * error body, a prompt above `contextChars` gets context_length_exceeded, and the model narrates before it acts.
 * The task model also plays the customer (the default `auto` customer with a real model).
 */
function realisticServer(contextChars: number) {
  return (request: RecordedRequest): ScriptedReply => {
    const body = request.body as {
      model: string;
      temperature?: number;
      messages: Array<{ role: string; content: string }>;
    };
    if (/^gpt-5/.test(body.model) && body.temperature !== undefined)
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
    const system = body.messages[0]?.content ?? "";
    if (system.startsWith("You are playing a customer")) {
      const turns = body.messages.filter((m) => m.role === "assistant").length;
      if (turns === 0) return openaiCompletion({ content: "Hi, I need help with my order." });
      const agentSaid = body.messages.at(-1)?.content ?? "";
      return openaiCompletion({
        content: agentSaid.startsWith("Let me") ? "Sure, take your time." : "Okay, thanks. ###STOP###",
      });
    }
    const agentTurns = body.messages.filter((m) => m.role === "assistant").length;
    return openaiCompletion({
      content:
        agentTurns === 0 ? "Let me look up your account, one moment." : "I cannot help with this request.",
    });
  };
}

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `hsearch eval --json` of the bare harness on one retail search task per family, as openai:gpt-5-mini at `baseURL`. */
function evalOneTaskPerFamily(baseURL: string) {
  const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
  return runCli(
    [
      "eval",
      "--harness",
      "harnesses/bare",
      "--tasks",
      dir,
      "--split",
      "search",
      "--model",
      "openai:gpt-5-mini",
      "--json",
    ],
    { env: { ...process.env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: baseURL } },
  );
}

async function evalAgainst(contextChars: number) {
  server = await startFakeOpenAIServer(realisticServer(contextChars));
  const result = await evalOneTaskPerFamily(server.baseURL);
  return { result, report: result.code === 0 ? JSON.parse(result.stdout) : undefined };
}

describe("eval against a server that behaves like a real gpt-5 model", () => {
  it("sends no temperature, answers a narrating agent, and has zero infrastructure errors", async () => {
    const { result, report } = await evalAgainst(1_000_000);
    expect(result.code).toBe(0);
    expect(report.summary).toMatchObject({ infra_errors: {}, context_overflow: 0 });
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    const bodies = (server?.requests ?? []).map((r) => r.body as Record<string, unknown>);
    expect(bodies.every((b) => !("temperature" in b))).toBe(true);
    // The narration got the customer's reply, and the stop token never reached the agent.
    const agentCalls = bodies.filter((b) => !JSON.stringify(b).includes("You are playing a customer"));
    const customerCalls = bodies.filter((b) => JSON.stringify(b).includes("You are playing a customer"));
    expect(JSON.stringify(customerCalls)).toContain("Let me look up your account");
    // …and the agent was asked again after the customer's go-ahead: two agent turns per episode.
    expect(agentCalls).toHaveLength(2 * report.summary.n_total);
    expect(JSON.stringify(agentCalls)).toContain("Sure, take your time.");
    expect(JSON.stringify(agentCalls)).not.toContain("###STOP###");
    expect(result.stderr).not.toContain("no price");
  });

  it("scores a context overflow as the agent's failure inside the denominator, never as an infra error", async () => {
    const { result, report } = await evalAgainst(3_000);
    expect(result.code).toBe(0);
    expect(report.summary.context_overflow).toBe(report.summary.n_total);
    expect(report.summary.n_scored).toBe(report.summary.n_total);
    expect(report.summary.infra_errors).toEqual({});
    expect(report.summary.feasible?.solve ?? 0).toBe(0);
  });

  it("exits 1 above max_infra_error_rate and prints the first provider error in full, scoring nothing", async () => {
    server = await startFakeOpenAIServer(() => ({
      status: 401,
      json: {
        error: {
          message: "Incorrect API key provided: te**key.",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }));
    const result = await evalOneTaskPerFamily(server.baseURL);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({
      n_scored: 0,
      blocked: null,
      feasible: null,
      infra_errors: { auth: report.summary.n_total },
    });
    expect(result.stderr).toContain("above max_infra_error_rate");
    expect(result.stderr).toContain("Incorrect API key provided: te**key.");
  });
});
