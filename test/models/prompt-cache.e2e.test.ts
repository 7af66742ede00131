/**
 * Anthropic prompt caching end to end: the real SDK through createChatModel against the fake Anthropic server with
 * the prompt-cache model of test/helpers/fake-prompt-cache.ts (breakpoints, at most 4, prefix order tools → system →
 * messages, a minimum length), which reports cache writes and reads as the real API does.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LimiterPool } from "../../src/models/limiter";
import { loadPriceTable } from "../../src/models/prices";
import { createChatModel } from "../../src/models/registry";
import type { ModelRole } from "../../src/models/settings";
import type { ChatRequest } from "../../src/models/types";
import { UsageMeter } from "../../src/models/usage";
import { anthropicMessage, startFakeAnthropicServer } from "../helpers/fake-anthropic-server";
import { openaiCompletion, startFakeOpenAIServer } from "../helpers/fake-openai-server";
import { FakePromptCache, openAIUsage, withUsage } from "../helpers/fake-prompt-cache";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function cachingServer(minimumTokens = 4096) {
  const cache = new FakePromptCache(minimumTokens);
  const server = await startFakeAnthropicServer((recorded) => {
    const usage = cache.account(recorded.body as Record<string, unknown>);
    if ("error" in usage)
      return {
        status: 400,
        json: { type: "error", error: { type: "invalid_request_error", message: usage.error } },
      };
    return withUsage(anthropicMessage({ text: "noted" }), { ...usage, output_tokens: 10 });
  });
  servers.push(server);
  return { server, cache };
}

const model = (baseURL: string, role: ModelRole, meter: UsageMeter, settings = {}) =>
  createChatModel("anthropic:claude-haiku-4-5", {
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: baseURL },
    limiters: new LimiterPool(),
    role,
    meter,
    settings,
  });

// A system prompt and tool schemas of the agent's size (≈ 19k characters together), then a growing conversation.
const tools = Array.from({ length: 16 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}. ${"Reads part of the store database and returns it as JSON. ".repeat(8)}`,
  parameters: { type: "object", properties: { id: { type: "string", description: "an id" } } },
}));
const system = `You are a customer service agent. ${"Follow the policy in every step you take. ".repeat(250)}`;
const turn = (n: number): ChatRequest => ({
  messages: [
    { role: "system", content: system },
    { role: "user", content: "Please cancel order #W1." },
    ...Array.from({ length: n }, (_, i) => [
      { role: "assistant" as const, content: `Looking at step ${i}.` },
      { role: "user" as const, content: `Reply ${i}.` },
    ]).flat(),
  ],
  tools,
  seed: 1,
  repeat: 0,
});

describe("Anthropic prompt caching (agent role default)", () => {
  it("writes the tools + system prefix once, then reads it on every later call; the meter matches the server", async () => {
    const { server, cache } = await cachingServer();
    const meter = new UsageMeter(loadPriceTable());
    const agent = model(server.baseURL, "agent", meter);
    for (let n = 0; n < 4; n++) await agent.generate(turn(n));
    const bodies = server.requests.map((r) => r.body as Record<string, unknown>);
    for (const body of bodies) {
      // Two breakpoints: the last tool and the system block (the API allows 4).
      const marked = JSON.stringify(body).match(/"cache_control"/g) ?? [];
      expect(marked).toHaveLength(2);
      const sentTools = body.tools as Array<Record<string, unknown>>;
      expect(sentTools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(sentTools.slice(0, -1).every((tool) => !("cache_control" in tool))).toBe(true);
      expect(body.system).toEqual([{ type: "text", text: system, cache_control: { type: "ephemeral" } }]);
    }
    const written = cache.totals.cache_creation_input_tokens;
    expect(written).toBeGreaterThan(4000);
    expect(cache.totals.cache_read_input_tokens).toBe(3 * written);
    const totals = meter.totals();
    expect(totals).toMatchObject({
      model_calls: 4,
      cache_write_tokens: written,
      cache_read_tokens: 3 * written,
      input_tokens:
        cache.totals.input_tokens +
        cache.totals.cache_creation_input_tokens +
        cache.totals.cache_read_input_tokens,
    });
    // Priced as claude-haiku-4-5: $1 input, $1.25 write, $0.10 read, $5 output per million tokens.
    const expected =
      (cache.totals.input_tokens * 1 + written * 1.25 + 3 * written * 0.1 + 4 * 10 * 5) / 1_000_000;
    expect(totals.usd).toBeCloseTo(expected, 10);
  });

  it("is off for other roles and when the agent sets prompt_cache: false; nothing is then written or read", async () => {
    const { server, cache } = await cachingServer();
    const meter = new UsageMeter(loadPriceTable());
    await model(server.baseURL, "judge", meter).generate(turn(0));
    await model(server.baseURL, "agent", meter, { prompt_cache: false }).generate(turn(1));
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain("cache_control");
    expect(cache.totals).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it("the fake refuses a fifth breakpoint as the API does", () => {
    const cache = new FakePromptCache();
    const marked = { cache_control: { type: "ephemeral" } };
    const body = {
      tools: [1, 2, 3].map((i) => ({ name: `t${i}`, ...marked })),
      system: [{ type: "text", text: "s", ...marked }],
      messages: [{ role: "user", content: [{ type: "text", text: "u", ...marked }] }],
    };
    expect(cache.account(body)).toEqual({ error: expect.stringContaining("A maximum of 4 blocks") });
  });
});

describe("OpenAI automatic prompt caching (no markers)", () => {
  it("a repeated prefix of at least 1,024 tokens is reported as cached_tokens in 128-token steps; the meter counts it", async () => {
    const cache = new FakePromptCache();
    const reported: number[] = [];
    const server = await startFakeOpenAIServer((recorded) => {
      const accounted = cache.accountOpenAI(recorded.body as Record<string, unknown>);
      reported.push(accounted.cached_tokens);
      return withUsage(openaiCompletion({ content: "noted" }), openAIUsage(accounted, 10));
    });
    servers.push(server);
    const meter = new UsageMeter(loadPriceTable());
    const agent = createChatModel("openai:gpt-4.1-mini", {
      env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseURL },
      limiters: new LimiterPool(),
      meter,
    });
    for (let n = 0; n < 3; n++) await agent.generate(turn(n));
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain("cache_control");
    const read = cache.totals.cache_read_input_tokens;
    expect(read).toBeGreaterThan(2 * 4000);
    expect(meter.totals()).toMatchObject({ model_calls: 3, cache_read_tokens: read, cache_write_tokens: 0 });
    // The first call had nothing to reuse; each later one reuses 1,024 tokens plus a multiple of 128.
    expect(reported[0]).toBe(0);
    for (const cached of reported.slice(1)) {
      expect(cached).toBeGreaterThan(4000);
      expect((cached - 1024) % 128).toBe(0);
    }
  });
});
