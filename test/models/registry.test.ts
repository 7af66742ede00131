import { describe, expect, it } from "vitest";
import { LimiterPool } from "../../src/models/limiter";
import { MockChatModel, textReply } from "../../src/models/mock";
import type { ProviderDefinition } from "../../src/models/provider";
import { ProviderCallError } from "../../src/models/provider-error";
import { PROVIDERS, registerProvider } from "../../src/models/providers";
import { createChatModel, parseModelSpec } from "../../src/models/registry";
import { isRealModelSpec } from "../../src/models/roles";
import type { ChatModel, ChatRequest } from "../../src/models/types";
import { UsageMeter } from "../../src/models/usage";
import { offlineProviders } from "../../src/sim";
import { hsearchErrorOf } from "../helpers/errors";

const env = { OPENAI_API_KEY: "sk-test-registry-key", ANTHROPIC_API_KEY: "sk-ant-registry-key" };

describe("parseModelSpec", () => {
  it("splits at the first colon, so model names may hold colons", () => {
    expect(parseModelSpec("openai:gpt-4.1-mini")).toEqual({ provider: "openai", name: "gpt-4.1-mini" });
    expect(parseModelSpec("openai:llama3.1:8b")).toEqual({ provider: "openai", name: "llama3.1:8b" });
    expect(parseModelSpec("oracle")).toEqual({ provider: "oracle", name: "" });
  });

  it.each(["", ":gpt", "OpenAI:gpt", "openai: gpt", "openai:", "open ai:gpt"])(
    "rejects %j, naming it",
    (spec) => {
      const error = hsearchErrorOf(() => parseModelSpec(spec));
      expect(error.code).toBe("bad_input");
      expect(error.message).toContain(JSON.stringify(spec));
    },
  );
});

describe("createChatModel", () => {
  it("builds openai and anthropic models with their ids, without touching the network", () => {
    const limiters = new LimiterPool();
    const openai = createChatModel("openai:gpt-x", { env, limiters });
    const anthropic = createChatModel("anthropic:claude-x", { env, limiters });
    expect([openai.id, openai.provider]).toEqual(["openai:gpt-x", "openai"]);
    expect([anthropic.id, anthropic.provider]).toEqual(["anthropic:claude-x", "anthropic"]);
  });

  it.each([
    ["openai:gpt-x", "OPENAI_API_KEY"],
    ["anthropic:claude-x", "ANTHROPIC_API_KEY"],
  ])("asks for the missing key of %s by its variable name", (spec, variable) => {
    const error = hsearchErrorOf(() => createChatModel(spec, { env: {} }));
    expect(error.code).toBe("bad_input");
    expect(error.message).toContain(`${variable} is not set`);
    expect(error.message).toContain(spec);
  });

  it("refuses a base URL that is not an http(s) URL, naming where it came from", () => {
    const fromEnv = hsearchErrorOf(() =>
      createChatModel("openai:m", { env: { ...env, OPENAI_BASE_URL: "localhost:8000" } }),
    );
    expect(fromEnv.code).toBe("bad_input");
    expect(fromEnv.message).toContain("OPENAI_BASE_URL must be an http(s) URL");
    const fromOption = hsearchErrorOf(() => createChatModel("openai:m", { env, baseURL: "not a url" }));
    expect(fromOption.message).toContain("baseURL is not a URL");
  });

  it("names the spec and the known providers when the prefix is unknown", () => {
    const error = hsearchErrorOf(() =>
      createChatModel("gemini:pro", { env, extraProviders: { sim: () => new MockChatModel([]) } }),
    );
    expect(error.code).toBe("bad_input");
    expect(error.message).toBe(
      "model spec \"gemini:pro\": unknown provider 'gemini' (known: openai, anthropic, sim)",
    );
  });

  it("delegates other prefixes to extraProviders with the name after the colon, metering their calls", async () => {
    const seen: string[] = [];
    const meter = new UsageMeter([]);
    const extraProviders = {
      sim: (name: string) => {
        seen.push(name);
        return new MockChatModel([textReply("sim says hi")], { id: `sim:${name}` });
      },
      oracle: (name: string) => {
        seen.push(name);
        return new MockChatModel([], { id: "oracle" });
      },
    };
    const sim = createChatModel("sim:default", { env: {}, extraProviders, meter });
    createChatModel("oracle", { env: {}, extraProviders });
    expect(seen).toEqual(["default", ""]);
    expect(sim.id).toBe("sim:default");
    await sim.generate({ messages: [{ role: "user", content: "x" }], tools: [], seed: 1 });
    expect(meter.totals()).toMatchObject({ model_calls: 1, unpriced_models: ["sim:default"] });
  });

  it("does not let extraProviders replace a built-in provider", () => {
    const error = hsearchErrorOf(() =>
      createChatModel("openai:gpt-x", { env, extraProviders: { openai: () => new MockChatModel([]) } }),
    );
    expect(error.code).toBe("bad_input");
    expect(error.message).toContain("cannot replace the built-in provider 'openai'");
  });
});

const ask: ChatRequest = { messages: [{ role: "user", content: "x" }], tools: [], seed: 1 };
const noSleep = { sleep: async () => {}, baseDelayMs: 0, maxDelayMs: 0 };

/** A provider whose client fails its first call as a rate limit, records what it was sent and counts calls in flight. */
function flakyProvider(name: string, overrides: Partial<ProviderDefinition> = {}) {
  const sent: ChatRequest[] = [];
  const flight = { now: 0, most: 0 };
  const definition: ProviderDefinition = {
    name,
    needsModelName: true,
    real: false,
    fallbacks: { seed: false, tokenLimitField: false },
    defaults: (_model, role) => ({ temperature: role === "agent" ? 0.25 : 0.75 }),
    create: ({ model }) => {
      const inner = new MockChatModel(
        (request, index) => {
          sent.push(request);
          if (index === 0) return new ProviderCallError("http", "slow down", { status: 429 });
          return textReply("ok");
        },
        { id: `${name}:${model}` },
      );
      const counted: ChatModel = {
        id: inner.id,
        provider: inner.provider,
        async generate(request) {
          flight.most = Math.max(flight.most, ++flight.now);
          await new Promise((resolve) => setTimeout(resolve, 5));
          try {
            return await inner.generate(request);
          } finally {
            flight.now--;
          }
        },
      };
      return counted;
    },
    ...overrides,
  };
  return { definition, sent, flight };
}

describe("every provider in the one stack", () => {
  it("gives an extra provider's definition its defaults, the user's settings, retry, the limiter and the meter", async () => {
    const { definition, sent, flight } = flakyProvider("local");
    const meter = new UsageMeter([]);
    const model = createChatModel("local:m", {
      env: {},
      extraProviders: { local: definition },
      retry: noSleep,
      meter,
      role: "agent",
      settings: { top_p: 0.5 },
      concurrency: 1,
      limiters: new LimiterPool(),
    });
    const replies = await Promise.all([model.generate(ask), model.generate(ask)]);
    expect(replies.map((reply) => reply.content)).toEqual(["ok", "ok"]);
    // The first call's rate limit was retried; the limiter let one call through at a time.
    expect(sent).toHaveLength(3);
    expect(flight.most).toBe(1);
    expect(sent[0]).toMatchObject({ temperature: 0.25, top_p: 0.5 });
    // The meter counts answered calls: the rate-limited one was not.
    expect(meter.totals()).toMatchObject({ model_calls: 2 });
  });

  it("takes a registered provider's specs everywhere, says whether it is real, and refuses a clash or a bad name", async () => {
    const { definition } = flakyProvider("registered-test", { real: true });
    const unregister = registerProvider(definition);
    try {
      const model = createChatModel("registered-test:m", { env: {}, retry: noSleep, role: "judge" });
      expect((await model.generate(ask)).content).toBe("ok");
      expect(isRealModelSpec("registered-test:m")).toBe(true);
      expect(isRealModelSpec("sim:default", Object.values(offlineProviders))).toBe(false);
      expect(hsearchErrorOf(() => registerProvider(definition)).message).toContain("already registered");
      expect(hsearchErrorOf(() => registerProvider({ ...definition, name: "Bad Name" })).code).toBe(
        "bad_input",
      );
      const clash = hsearchErrorOf(() =>
        createChatModel("openai:x", {
          env,
          extraProviders: { "registered-test": () => new MockChatModel([]) },
        }),
      );
      expect(clash.message).toContain("cannot replace the built-in provider 'registered-test'");
    } finally {
      unregister();
      expect(PROVIDERS.map((provider) => provider.name)).toEqual(["openai", "anthropic"]);
    }
  });

  it("wraps the simulator like any provider, keeping that the oracle follows the reference", async () => {
    const oracle = createChatModel("oracle", { env: {}, extraProviders: offlineProviders });
    const sim = createChatModel("sim:default", { env: {}, extraProviders: offlineProviders });
    expect(oracle.followsReference).toBe(true);
    expect(sim.followsReference).toBeFalsy();
    // Outside the agent loop the simulator refuses: the error reaches the caller through the stack unchanged.
    await expect(sim.generate(ask)).rejects.toThrow("needs the simulator context");
  });
});
