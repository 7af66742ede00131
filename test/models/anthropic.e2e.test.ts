/**
 * End to end: the real Anthropic SDK, through the full provider stack from createChatModel, talking HTTP to a fake
 * Anthropic server on 127.0.0.1. Nothing in the SDK is mocked; waits go through an injected sleep.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { loadPriceTable } from "../../src/models/prices";
import type { ChatRequest } from "../../src/models/types";
import { UsageMeter } from "../../src/models/usage";
import { hsearchFailureOf } from "../helpers/errors";
import { anthropicError, anthropicMessage } from "../helpers/fake-anthropic-server";
import { holdFirst } from "../helpers/fake-openai-server";
import { PROVIDERS, providerUnderTest } from "../helpers/provider-e2e";
import { simContext } from "../sim/context-fixture";

const API_KEY = PROVIDERS.anthropic.apiKey;

const setup = providerUnderTest(PROVIDERS.anthropic);
const failureOf = hsearchFailureOf;

const request: ChatRequest = {
  messages: [
    { role: "system", content: "You are a store agent." },
    { role: "user", content: "Exchange the lamp in order #7." },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        { id: "toolu_a", name: "get_order", arguments: { id: "#7" } },
        { id: "toolu_b", name: "get_user", arguments: { id: "u1" } },
      ],
    },
    { role: "tool", tool_call_id: "toolu_a", name: "get_order", content: '{"items":["desk"]}' },
    { role: "tool", tool_call_id: "toolu_b", name: "get_user", content: '{"name":"Ana"}' },
  ],
  tools: [
    {
      name: "get_order",
      description: "Read an order",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  ],
  temperature: 0.5,
  max_tokens: 300,
  seed: 5,
  providerOptions: { sim: simContext("retail-7") },
};

describe("anthropic provider over HTTP", () => {
  it("sends a messages request (system, merged tool results, tools) and reads tool use and usage back", async () => {
    const meter = new UsageMeter(loadPriceTable());
    const { server, model } = await setup(
      [
        anthropicMessage({
          text: "The lamp is not in that order.",
          toolUses: [{ id: "toolu_c", name: "abstain", input: { reason: "item absent" } }],
          usage: { input_tokens: 1_000_000, output_tokens: 100_000 },
          model: "claude-sonnet-4-5-20250929",
        }),
      ],
      { meter },
    );

    const response = await model.generate(request);

    expect(response).toEqual({
      content: "The lamp is not in that order.",
      tool_calls: [{ id: "toolu_c", name: "abstain", arguments: { reason: "item absent" } }],
      usage: { input_tokens: 1_000_000, output_tokens: 100_000 },
      model: "claude-sonnet-4-5-20250929",
      finish_reason: "tool_use",
    });
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.headers["x-api-key"]).toBe(API_KEY);
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 300,
      // The agent role marks the system prompt and the tools for Anthropic's prompt cache.
      system: [{ type: "text", text: "You are a store agent.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Exchange the lamp in order #7." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_a", name: "get_order", input: { id: "#7" } },
            { type: "tool_use", id: "toolu_b", name: "get_user", input: { id: "u1" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: '{"items":["desk"]}' },
            { type: "tool_result", tool_use_id: "toolu_b", content: '{"name":"Ana"}' },
          ],
        },
      ],
      tools: [
        {
          name: "get_order",
          description: "Read an order",
          input_schema: request.tools[0]?.parameters,
          cache_control: { type: "ephemeral" },
        },
      ],
      temperature: 0.5,
    });
    expect(JSON.stringify(sent?.body)).not.toContain("PROTECTED-CUE-TEXT");
    // claude-sonnet-4-5 at $3 / $15 per million tokens.
    expect(meter.totals()).toMatchObject({ model_calls: 1, usd: 4.5, unpriced_models: [] });
  });

  it("waits as a 429's retry-after asks, then succeeds", async () => {
    const { server, model, waits } = await setup([
      anthropicError(429, "rate_limit_error", { "retry-after": "4" }),
      anthropicMessage({ text: "fine now" }),
    ]);
    expect((await model.generate(request)).content).toBe("fine now");
    expect(waits).toEqual([4000]);
    expect(server.requests).toHaveLength(2);
  });

  it("retries an overloaded 529 and a 500, then succeeds", async () => {
    const { server, model, waits } = await setup([
      anthropicError(529, "Overloaded"),
      anthropicError(500, "Internal server error"),
      anthropicMessage({ text: "recovered" }),
    ]);
    expect((await model.generate(request)).content).toBe("recovered");
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it("gives up on a server that never answers after the attempts allowed, as a provider error", async () => {
    const { server, model } = await setup(() => ({ hang: true }), {
      // Long enough for each attempt to reach the server on a loaded machine (150 ms left a stalled event loop no room).
      timeoutMs: 1_000,
      retry: { maxAttempts: 3 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("provider");
    expect(error.message).toBe("anthropic:claude-sonnet-4-5: request timed out (gave up after 3 attempts)");
    expect(server.requests).toHaveLength(3);
  });

  it("fails at once on a 400, naming the status, without the key", async () => {
    const { server, model } = await setup([anthropicError(400, `bad request from key ${API_KEY}`)]);
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("provider");
    expect(error.message).toContain("HTTP 400");
    expect(error.message).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("reports a malformed JSON body as a model_reply error", async () => {
    const { model } = await setup(() => ({ raw: "{not json" }), { retry: { maxReplyAttempts: 1 } });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain("anthropic:claude-sonnet-4-5: malformed body: not JSON");
  });

  it("reports an empty reply as a model_reply error after the re-asks allowed", async () => {
    const { server, model } = await setup(() => anthropicMessage({ stopReason: "max_tokens" }), {
      retry: { maxReplyAttempts: 2 },
    });
    const error = await failureOf(model.generate(request));
    expect(error.code).toBe("model_reply");
    expect(error.message).toBe(
      "anthropic:claude-sonnet-4-5: empty reply: no content and no tool calls (finish_reason: max_tokens) (2 attempts)",
    );
    expect(server.requests).toHaveLength(2);
  });

  it("serves an identical request from the cache, misses on another repeat, and stores no key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-anthropic-cache-"));
    let answered = 0;
    const { server, model } = await setup(
      () => {
        answered += 1;
        return anthropicMessage({ text: `answer ${answered}` });
      },
      { cachePath: join(dir, "cache.db") },
    );
    const first = await model.generate(request);
    expect(await model.generate(request)).toEqual({ ...first, cached: true });
    expect((await model.generate({ ...request, repeat: 1 })).content).toBe("answer 2");
    expect(server.requests).toHaveLength(2);
    closeRequestCaches();
    for (const file of ["cache.db", "cache.db-wal"]) {
      try {
        expect(readFileSync(join(dir, file)).includes(API_KEY)).toBe(false);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
  });

  it("never has more requests in flight at the server than the concurrency limit", async () => {
    const { server, model } = await setup(
      holdFirst(4, () => anthropicMessage({ text: "slow" })),
      { concurrency: 4 },
    );
    await Promise.all(Array.from({ length: 16 }, (_, index) => model.generate({ ...request, seed: index })));
    expect(server.requests).toHaveLength(16);
    expect(server.maxInFlight).toBe(4);
  });
});
