/**
 * The parameter fallback layer end to end: the real SDKs through the full provider stack from createChatModel,
 * against fake servers that reject a parameter the way OpenAI and Anthropic do, for models whose names do not say
 * they would (a deployment name).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { LimiterPool } from "../../src/models/limiter";
import { createRejectionMemory, type LearntRejection } from "../../src/models/parameter-fallback";
import { ProviderError } from "../../src/models/provider-error";
import { createChatModel } from "../../src/models/registry";
import type { ChatRequest } from "../../src/models/types";
import { anthropicMessage, startFakeAnthropicServer } from "../helpers/fake-anthropic-server";
import {
  type FakeHttpServer,
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../helpers/fake-openai-server";

const servers: FakeHttpServer[] = [];
afterEach(async () => {
  closeRequestCaches();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const request: ChatRequest = {
  messages: [{ role: "user", content: "Where is order #7?" }],
  tools: [],
  temperature: 0.2,
  max_tokens: 300,
  seed: 5,
};

const TEMPERATURE_400: ScriptedReply = {
  status: 400,
  json: {
    error: {
      message:
        "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
      type: "invalid_request_error",
      param: "temperature",
      code: "unsupported_value",
    },
  },
};
const MAX_TOKENS_400: ScriptedReply = {
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

/** An OpenAI server that serves a reasoning model under any name: no temperature, no max_tokens. */
function reasoningDeployment(body: RecordedRequest["body"]): ScriptedReply {
  const sent = body as Record<string, unknown>;
  if ("temperature" in sent) return TEMPERATURE_400;
  if ("max_tokens" in sent) return MAX_TOKENS_400;
  return openaiCompletion({ content: "ok" });
}

async function openaiServer(script: (request: RecordedRequest) => ScriptedReply) {
  const server = await startFakeOpenAIServer(script);
  servers.push(server);
  return server;
}

function openaiModel(
  name: string,
  baseURL: string,
  options: Partial<Parameters<typeof createChatModel>[1]> = {},
) {
  return createChatModel(`openai:${name}`, {
    env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: baseURL },
    limiters: new LimiterPool(),
    retry: { sleep: async () => {} },
    ...options,
  });
}

const bodies = (server: FakeHttpServer) => server.requests.map((r) => r.body as Record<string, unknown>);

describe("a provider that rejects a parameter the model name did not announce", () => {
  it("sends the call again without each rejected parameter, says so once per parameter, and leaves them out of every later call", async () => {
    const server = await openaiServer((r) => reasoningDeployment(r.body));
    const learnt: LearntRejection[] = [];
    const rejections = createRejectionMemory({ onLearn: (r) => learnt.push(r) });
    const model = openaiModel("prod-reasoner", server.baseURL, { rejections, role: "judge" });

    const first = await model.generate(request);
    expect(first.content).toBe("ok");
    // With temperature, then without it but with max_tokens, then with max_completion_tokens: answered.
    expect(bodies(server).map((b) => [b.temperature, b.max_tokens, b.max_completion_tokens])).toEqual([
      [0.2, 300, undefined],
      [undefined, 300, undefined],
      [undefined, undefined, 300],
    ]);
    expect(learnt).toEqual([
      expect.objectContaining({
        model: "openai:prod-reasoner",
        role: "judge",
        parameter: "temperature",
        replacement: null,
        message: expect.stringContaining("Only the default (1) value is supported"),
      }),
      expect.objectContaining({ parameter: "max_tokens", replacement: "max_completion_tokens" }),
    ]);

    await model.generate({ ...request, seed: 6 });
    expect(bodies(server)).toHaveLength(4);
    expect(bodies(server)[3]).toMatchObject({ max_completion_tokens: 300 });
    expect(bodies(server)[3]).not.toHaveProperty("temperature");
    expect(learnt).toHaveLength(2);
  });

  it("shares what one role learnt with every role calling the same model", async () => {
    const server = await openaiServer((r) => reasoningDeployment(r.body));
    const rejections = createRejectionMemory();
    const agent = openaiModel("smart", server.baseURL, { rejections, role: "agent" });
    const customer = openaiModel("smart", server.baseURL, { rejections, role: "customer" });
    await agent.generate(request);
    const before = server.requests.length;
    await customer.generate({ ...request, seed: 9 });
    expect(server.requests.length - before).toBe(1);
  });

  it("starts from a memory's known rejections (a resumed run): the first call is already without them", async () => {
    const server = await openaiServer((r) => reasoningDeployment(r.body));
    const learnt: LearntRejection[] = [];
    const rejections = createRejectionMemory({
      known: [
        { model: "openai:smart", role: "agent", parameter: "temperature", replacement: null, message: "m" },
        {
          model: "openai:smart",
          role: "agent",
          parameter: "max_tokens",
          replacement: "max_completion_tokens",
          message: "m",
        },
      ],
      onLearn: (r) => learnt.push(r),
    });
    await openaiModel("smart", server.baseURL, { rejections }).generate(request);
    expect(server.requests).toHaveLength(1);
    expect(learnt).toEqual([]);
  });

  it("keys the request cache on what was sent: a new process with the same cache asks only the refused call", async () => {
    const server = await openaiServer((r) => reasoningDeployment(r.body));
    const cachePath = join(mkdtempSync(join(tmpdir(), "hsearch-fallback-cache-")), "cache.db");
    const noMaxTokens = { ...request, max_tokens: undefined };
    await openaiModel("smart", server.baseURL, { cachePath }).generate(noMaxTokens);
    expect(server.requests).toHaveLength(2);
    // A fresh memory: the temperature is tried once more (refused, never cached), then the cached answer serves.
    const again = await openaiModel("smart", server.baseURL, { cachePath }).generate(noMaxTokens);
    expect(again.cached).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it("keeps a 400 that names no parameter, or names one it cannot leave out, an error after one call", async () => {
    const server = await openaiServer(() => ({
      status: 400,
      json: {
        error: { message: "Invalid request.", type: "invalid_request_error", param: null, code: null },
      },
    }));
    const error = await openaiModel("smart", server.baseURL)
      .generate(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).errorClass).toBe("invalid_request");
    expect(server.requests).toHaveLength(1);

    // A server that names the temperature even when none was sent: dropped once, then the error stands.
    const stubborn = await openaiServer(() => TEMPERATURE_400);
    const failure = await openaiModel("smart", stubborn.baseURL)
      .generate(request)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as Error).message).toContain("Unsupported value: 'temperature'");
    expect(stubborn.requests).toHaveLength(2);
  });

  it("Anthropic: drops a temperature the model no longer takes, and top_p when both cannot be sent", async () => {
    const server = await startFakeAnthropicServer((recorded) => {
      const body = recorded.body as Record<string, unknown>;
      if ("temperature" in body && "top_p" in body)
        return {
          status: 400,
          json: {
            type: "error",
            error: {
              type: "invalid_request_error",
              message:
                "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
            },
          },
        };
      if ("temperature" in body)
        return {
          status: 400,
          json: {
            type: "error",
            error: { type: "invalid_request_error", message: "`temperature` is deprecated for this model." },
          },
        };
      return anthropicMessage({ text: "ok" });
    });
    servers.push(server);
    const learnt: LearntRejection[] = [];
    const model = createChatModel("anthropic:house-model", {
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseURL },
      limiters: new LimiterPool(),
      retry: { sleep: async () => {} },
      rejections: createRejectionMemory({ onLearn: (r) => learnt.push(r) }),
    });
    const reply = await model.generate({ ...request, top_p: 0.9 });
    expect(reply.content).toBe("ok");
    expect(learnt.map((r) => r.parameter)).toEqual(["top_p", "temperature"]);
    const last = bodies(server).at(-1);
    expect(last).not.toHaveProperty("temperature");
    expect(last).not.toHaveProperty("top_p");
    // Anthropic's required max_tokens is never dropped.
    expect(last).toMatchObject({ max_tokens: 300 });
  });
});
