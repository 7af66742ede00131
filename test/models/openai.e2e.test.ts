/**
 * End to end: the real OpenAI SDK, through the full provider stack from createChatModel, talking HTTP to a fake
 * OpenAI server on 127.0.0.1. Nothing in the SDK is mocked; waits go through an injected sleep.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { LimiterPool } from "../../src/models/limiter";
import { wireSeed } from "../../src/models/openai-wire";
import { loadPriceTable } from "../../src/models/prices";
import { createChatModel } from "../../src/models/registry";
import type { ChatRequest } from "../../src/models/types";
import { UsageMeter } from "../../src/models/usage";
import { hsearchFailureOf } from "../helpers/errors";
import {
  holdFirst,
  openaiCompletion,
  openaiError,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";
import { PROVIDERS, providerUnderTest } from "../helpers/provider-e2e";
import { simContext } from "../sim/context-fixture";

const API_KEY = PROVIDERS.openai.apiKey;

const setup = providerUnderTest(PROVIDERS.openai);
const failureOf = hsearchFailureOf;

const request: ChatRequest = {
  messages: [
    { role: "system", content: "You are a store agent." },
    { role: "user", content: "Where is order #7?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_a", name: "get_order", arguments: { id: "#7" } }],
    },
    { role: "tool", tool_call_id: "call_a", name: "get_order", content: '{"status":"delivered"}' },
  ],
  tools: [
    {
      name: "get_order",
      description: "Read an order",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  ],
  temperature: 0.3,
  max_tokens: 200,
  seed: 11,
  repeat: 2,
  providerOptions: { sim: simContext("retail-7") },
};

describe("openai provider over HTTP", () => {
  it("sends the chat.completions request and reads tool calls and usage back", async () => {
    const meter = new UsageMeter(loadPriceTable());
    const { server, model } = await setup(
      [
        openaiCompletion({
          content: "Let me exchange it.",
          toolCalls: [{ id: "call_b", name: "exchange_items", arguments: { order: "#7", items: ["lamp"] } }],
          usage: { prompt_tokens: 321, completion_tokens: 45 },
          model: "gpt-test-2026-01-01",
        }),
      ],
      { meter },
    );

    const response = await model.generate(request);

    expect(response).toEqual({
      content: "Let me exchange it.",
      tool_calls: [{ id: "call_b", name: "exchange_items", arguments: { order: "#7", items: ["lamp"] } }],
      usage: { input_tokens: 321, output_tokens: 45 },
      model: "gpt-test-2026-01-01",
      finish_reason: "tool_calls",
    });
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "You are a store agent." },
        { role: "user", content: "Where is order #7?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "get_order", arguments: '{"id":"#7"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: '{"status":"delivered"}' },
      ],
      tools: [{ type: "function", function: request.tools[0] }],
      temperature: 0.3,
      max_tokens: 200,
      seed: wireSeed(11, 2),
    });
    expect(JSON.stringify(sent?.body)).not.toContain("PROTECTED-CUE-TEXT");
    expect(meter.totals()).toMatchObject({
      model_calls: 1,
      input_tokens: 321,
      output_tokens: 45,
      usd: 0,
      unpriced_models: ["openai:gpt-test"],
    });
  });

  it("waits as a 429's retry-after asks, then succeeds", async () => {
    const { server, model, waits } = await setup([
      openaiError(429, "Rate limit reached", { "retry-after": "2" }),
      openaiCompletion({ content: "fine now" }),
    ]);
    const response = await model.generate(request);
    expect(response.content).toBe("fine now");
    expect(waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it("honours retry-after-ms", async () => {
    const { model, waits } = await setup([
      openaiError(429, "Rate limit reached", { "retry-after-ms": "350" }),
      openaiCompletion({ content: "fine now" }),
    ]);
    await model.generate(request);
    expect(waits).toEqual([350]);
  });

  it("retries a 500 with backoff and then succeeds", async () => {
    const { server, model, waits } = await setup(
      [openaiError(500, "The server had an error"), openaiCompletion({ content: "recovered" })],
      { retry: { baseDelayMs: 40, maxDelayMs: 1_000 } },
    );
    const response = await model.generate(request);
    expect(response.content).toBe("recovered");
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(20);
    expect(waits[0]).toBeLessThanOrEqual(40);
  });

  it("gives up on a server that never answers after the attempts allowed, as a provider error", async () => {
    const { server, model, waits } = await setup(() => ({ hang: true }), {
      // Long enough for each attempt to reach the server on a loaded machine (150 ms left a stalled event loop no room).
      timeoutMs: 1_000,
      retry: { maxAttempts: 2 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("provider");
    expect(error.message).toBe("openai:gpt-test: request timed out (gave up after 2 attempts)");
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("retries a refused connection, then reports it as a provider error", async () => {
    const gone = await startFakeOpenAIServer();
    await gone.close();
    const waits: number[] = [];
    const model = createChatModel("openai:gpt-test", {
      env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: gone.baseURL },
      limiters: new LimiterPool(),
      retry: { maxAttempts: 3, sleep: async (ms) => void waits.push(ms) },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("provider");
    expect(error.message).toMatch(
      /^openai:gpt-test: connection failed: .*ECONNREFUSED.* \(gave up after 3 attempts\)$/,
    );
    expect(waits).toHaveLength(2);
  });

  it("fails at once on a 401, without the key in the error even when the server echoes it", async () => {
    const { server, model } = await setup([openaiError(401, `Incorrect API key provided: ${API_KEY}`)]);
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("provider");
    expect(error.message).toContain("HTTP 401");
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify({ ...error, message: error.message, cause: String(error.cause) })).not.toContain(
      API_KEY,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("reports a malformed JSON body as a model_reply error after the re-asks allowed", async () => {
    const { server, model } = await setup(() => ({ raw: '{"choices": [', contentType: "application/json" }), {
      retry: { maxReplyAttempts: 2 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toMatch(/^openai:gpt-test: malformed body: not JSON \(.+\) \(2 attempts\)$/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports a body of the wrong shape as a model_reply error", async () => {
    const { model } = await setup(() => ({ json: { object: "chat.completion", model: "m" } }), {
      retry: { maxReplyAttempts: 1 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain("malformed body: choices is missing, not an array");
  });

  it("reports an empty reply as a model_reply error, and takes a good reply on a re-ask", async () => {
    const empty = openaiCompletion({ content: "", finishReason: "length" });
    const stuck = await setup(() => empty, { retry: { maxReplyAttempts: 3 } });
    const error = await failureOf(stuck.model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toBe(
      "openai:gpt-test: empty reply: no content and no tool calls (finish_reason: length) (3 attempts)",
    );
    expect(stuck.server.requests).toHaveLength(3);

    const recovering = await setup([empty, openaiCompletion({ content: "here it is" })]);
    expect((await recovering.model.generate(request)).content).toBe("here it is");
  });

  it("refuses a reply longer than the reply limit as model_reply after the re-asks, and caches nothing", async () => {
    const cachePath = join(mkdtempSync(join(tmpdir(), "hsearch-reply-limit-")), "cache.db");
    const huge = openaiCompletion({ content: "x".repeat(5_000) });
    const { server, model } = await setup(() => huge, {
      maxReplyChars: 4_000,
      cachePath,
      retry: { maxReplyAttempts: 2 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toBe(
      "openai:gpt-test: a reply of 5000 characters, more than the limit of 4000 (limits.model_reply_chars) (2 attempts)",
    );
    expect(server.requests).toHaveLength(2);
    // Nothing was stored: the same request asks the server again.
    await failureOf(model.generate(request));
    expect(server.requests).toHaveLength(4);

    const bigArguments = openaiCompletion({
      toolCalls: [{ name: "get_order", arguments: JSON.stringify({ id: "y".repeat(5_000) }) }],
    });
    const tools = await setup(() => bigArguments, { maxReplyChars: 4_000, retry: { maxReplyAttempts: 1 } });
    expect((await failureOf(tools.model.generate(request))).message).toContain("a reply of 5018 characters");
    const fits = await setup(() => huge, { maxReplyChars: 5_000 });
    expect((await fits.model.generate(request)).content).toHaveLength(5_000);
  });

  it("reports tool arguments that are not JSON as a model_reply error", async () => {
    const { model } = await setup(
      () => openaiCompletion({ toolCalls: [{ name: "get_order", arguments: '{"id": ' }] }),
      {
        retry: { maxReplyAttempts: 1 },
      },
    );
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain("arguments of tool call 'get_order' are not valid JSON");
  });

  it("serves an identical request from the cache, asks again for another repeat, and stores no key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-openai-cache-"));
    const cachePath = join(dir, "cache.db");
    const meter = new UsageMeter(loadPriceTable());
    let answered = 0;
    const { server, model } = await setup(
      () => {
        answered += 1;
        return openaiCompletion({ content: `answer ${answered}` });
      },
      { cachePath, meter },
    );

    const first = await model.generate(request);
    const hit = await model.generate({ ...request, providerOptions: { sim: simContext("another-task") } });
    const otherRepeat = await model.generate({ ...request, repeat: 3 });

    expect(first.content).toBe("answer 1");
    expect(hit).toEqual({ ...first, cached: true });
    expect(otherRepeat.content).toBe("answer 2");
    expect(server.requests).toHaveLength(2);
    expect(meter.totals()).toMatchObject({ model_calls: 2, cached_calls: 1 });

    closeRequestCaches();
    for (const file of ["cache.db", "cache.db-wal", "cache.db-shm"]) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(dir, file));
      } catch {
        continue;
      }
      expect(bytes.includes(API_KEY)).toBe(false);
      expect(bytes.includes("PROTECTED-CUE-TEXT")).toBe(false);
    }
    expect(readFileSync(cachePath).includes("answer 1")).toBe(true);
  });

  it("never has more requests in flight at the server than the concurrency limit", async () => {
    const { server, model } = await setup(
      holdFirst(3, () => openaiCompletion({ content: "slow" })),
      { concurrency: 3 },
    );
    const calls = Array.from({ length: 12 }, (_, index) => model.generate({ ...request, seed: index }));
    const responses = await Promise.all(calls);
    expect(responses).toHaveLength(12);
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBe(3);
  });

  it("shares the limit between two models on the same server", async () => {
    const { server } = await setup(holdFirst(2, () => openaiCompletion({ content: "slow" })));
    const limiters = new LimiterPool();
    const options = {
      env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: server.baseURL },
      limiters,
      concurrency: 2,
    };
    const a = createChatModel("openai:model-a", options);
    const b = createChatModel("openai:model-b", options);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).generate({ ...request, seed: i })),
    );
    expect(server.maxInFlight).toBe(2);
  });

  it("sends a reasoning model's output limit as max_completion_tokens on any server, since they reject max_tokens", async () => {
    // OpenAI answers max_tokens for gpt-5 and o-series models with 400 "Use 'max_completion_tokens' instead", also
    // behind a proxy or gateway at another base URL; other models at another URL keep max_tokens (vLLM, Ollama).
    const { server } = await setup(() => openaiCompletion({ content: "ok" }));
    const options = {
      env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: server.baseURL },
      limiters: new LimiterPool(),
    };
    const { temperature: _none, ...limited } = request;
    for (const name of ["gpt-5-mini", "o4-mini", "llama3.1:8b"])
      await createChatModel(`openai:${name}`, options).generate(limited);
    const sent = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(sent.map((body) => [body.model, body.max_completion_tokens, body.max_tokens])).toEqual([
      ["gpt-5-mini", 200, undefined],
      ["o4-mini", 200, undefined],
      ["llama3.1:8b", undefined, 200],
    ]);
  });
});
