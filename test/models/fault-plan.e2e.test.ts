/**
 * The fake servers' seeded fault plan against the real provider stack: every fault kind is one a provider really
 * sends, the client's retry gets past it (first-call scope), the same seed meets the same faults, and the server's
 * bill is what it sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LimiterPool } from "../../src/models/limiter";
import { loadPriceTable } from "../../src/models/prices";
import { createChatModel } from "../../src/models/registry";
import type { ChatRequest } from "../../src/models/types";
import { UsageMeter } from "../../src/models/usage";
import { anthropicMessage, startFakeAnthropicServer } from "../helpers/fake-anthropic-server";
import { type FakeHttpServer, openaiCompletion, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { FAULT_KINDS, type FaultPlan } from "../helpers/fault-plan";

const servers: FakeHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 2, sleep: async () => {} };
const meter = () => new UsageMeter(loadPriceTable());

function request(text: string): ChatRequest {
  return {
    messages: [{ role: "user", content: text }],
    tools: [{ name: "lookup", description: "look up", parameters: { type: "object", properties: {} } }],
    seed: 1,
  };
}

/** A short client timeout only where a hang must end at it; the machine may be slow. */
async function openaiSetup(plan: FaultPlan, timeoutMs = 20_000) {
  const server = await startFakeOpenAIServer(
    () => openaiCompletion({ content: "answer", usage: { prompt_tokens: 100, completion_tokens: 7 } }),
    { faults: plan },
  );
  servers.push(server);
  const usage = meter();
  const model = createChatModel("openai:gpt-test", {
    meter: usage,
    env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseURL },
    limiters: new LimiterPool(),
    timeoutMs,
    retry: FAST_RETRY,
  });
  return { server, model, usage };
}

async function anthropicSetup(plan: FaultPlan, timeoutMs = 20_000) {
  const server = await startFakeAnthropicServer(
    () => anthropicMessage({ text: "answer", usage: { input_tokens: 90, output_tokens: 5 } }),
    { faults: plan },
  );
  servers.push(server);
  const usage = meter();
  const model = createChatModel("anthropic:claude-test", {
    meter: usage,
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.baseURL },
    limiters: new LimiterPool(),
    timeoutMs,
    retry: FAST_RETRY,
  });
  return { server, model, usage };
}

describe("fault plan", () => {
  for (const [wire, setup] of [
    ["openai", openaiSetup],
    ["anthropic", anthropicSetup],
  ] as const) {
    for (const kind of FAULT_KINDS) {
      it(`${wire}: a ${kind} on the first call is retried and answered on the second`, async () => {
        const { server, model, usage } = await setup({ seed: 1, rate: 1, kinds: [kind], hangMs: 50 });
        const reply = await model.generate(request(`q-${kind}`));
        expect(reply.content).toBe("answer");
        expect(server.requests).toHaveLength(2);
        expect(server.faults?.[kind]).toBe(1);
        // The answer is billed, and so is an unusable reply that states its usage (the provider generated it):
        // a malformed tool call, and Anthropic's empty message (OpenAI's empty choices carry no usage).
        const billedFault =
          kind === "malformed_tool_args" || (wire === "anthropic" && kind === "empty_choices");
        expect(server.billed.calls).toBe(billedFault ? 2 : 1);
        // The client's meter counts exactly what the server billed.
        expect(usage.totals()).toMatchObject({
          model_calls: server.billed.calls,
          input_tokens: server.billed.input_tokens,
          output_tokens: server.billed.output_tokens,
        });
      });
    }
  }

  it("a hung call without a drop time ends at the client's timeout and is retried", async () => {
    // Long enough for the call to reach the server on a loaded machine before the client gives up on it.
    const { server, model } = await openaiSetup({ seed: 3, rate: 1, kinds: ["hang"] }, 2_000);
    expect((await model.generate(request("hang"))).content).toBe("answer");
    expect(server.faults?.hang).toBe(1);
  });

  it("429 asks for the configured retry-after", async () => {
    const { server, model } = await openaiSetup({
      seed: 1,
      rate: 1,
      kinds: ["rate_limit"],
      retryAfterSeconds: 0,
    });
    await model.generate(request("limited"));
    expect(server.requests).toHaveLength(2);
  });

  it("every_call scope fails every attempt: the client gives up with a provider error of the fault's class", async () => {
    const { server, model } = await openaiSetup({
      seed: 1,
      rate: 1,
      kinds: ["unavailable"],
      scope: "every_call",
    });
    const error = await model.generate(request("down")).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: "provider", errorClass: "server" });
    expect(server.requests).toHaveLength(5);
    expect(server.billed.calls).toBe(0);
  });

  it("the same seed meets the same faults whatever the order of calls; another seed meets others", async () => {
    const texts = Array.from({ length: 60 }, (_, i) => `question ${i}`);
    const faultedBodies = async (seed: number, order: string[]) => {
      const { server, model } = await openaiSetup({ seed, rate: 0.3, kinds: ["server_error"] });
      await Promise.all(order.map((text) => model.generate(request(text))));
      const counts = new Map<string, number>();
      for (const r of server.requests) {
        const text = (r.body as { messages: Array<{ content: string }> }).messages[0]?.content ?? "";
        counts.set(text, (counts.get(text) ?? 0) + 1);
      }
      return texts.filter((text) => (counts.get(text) ?? 0) > 1);
    };
    const first = await faultedBodies(7, texts);
    const reversed = await faultedBodies(7, [...texts].reverse());
    const other = await faultedBodies(8, texts);
    expect(first).toEqual(reversed);
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(35);
    expect(other).not.toEqual(first);
  });

  it("the bill counts prompt-cache tokens as each wire reports them", async () => {
    const openai = await startFakeOpenAIServer(() =>
      openaiCompletion({
        content: "x",
        usage: { prompt_tokens: 100, completion_tokens: 2, cached_tokens: 60 },
      }),
    );
    const anthropic = await startFakeAnthropicServer(() =>
      anthropicMessage({
        text: "x",
        usage: {
          input_tokens: 10,
          output_tokens: 2,
          cache_read_input_tokens: 50,
          cache_creation_input_tokens: 40,
        },
      }),
    );
    servers.push(openai, anthropic);
    const env = {
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: openai.baseURL,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: anthropic.baseURL,
    };
    const limiters = new LimiterPool();
    const a = await createChatModel("openai:m", { env, limiters }).generate(request("a"));
    const b = await createChatModel("anthropic:m", { env, limiters }).generate(request("b"));
    expect(openai.billed).toMatchObject({ calls: 1, input_tokens: 100, cache_read_tokens: 60 });
    expect(openai.billed.by_model.m?.input_tokens).toBe(100);
    expect(anthropic.billed).toMatchObject({
      input_tokens: 100,
      cache_read_tokens: 50,
      cache_write_tokens: 40,
    });
    // The client reads the same counts the server billed.
    expect(a.usage).toMatchObject({ input_tokens: 100, cache_read_tokens: 60 });
    expect(b.usage).toMatchObject({ input_tokens: 100, cache_read_tokens: 50, cache_write_tokens: 40 });
  });
});
