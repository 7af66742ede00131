import { describe, expect, it } from "vitest";
import { LimiterPool } from "../../src/models/limiter";
import { MockChatModel, textReply } from "../../src/models/mock";
import { createChatModel, parseModelSpec } from "../../src/models/registry";
import { UsageMeter } from "../../src/models/usage";
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
