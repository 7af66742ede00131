import { afterEach } from "vitest";
import { closeRequestCaches } from "../../src/models/cache";
import { LimiterPool } from "../../src/models/limiter";
import { type CreateChatModelOptions, createChatModel } from "../../src/models/registry";
import { type FakeAnthropicServer, startFakeAnthropicServer } from "./fake-anthropic-server";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "./fake-openai-server";

/**
 * The real providers end to end, one row each: which model, which fake server, which variables point the SDK at it.
 * `providerUnderTest(row)` gives a test file its `setup(script, options)`: a fake server on 127.0.0.1, the model from
 * createChatModel with the full provider stack, and the retry waits recorded instead of slept; servers and request
 * caches are closed after each test.
 */
export const PROVIDERS = {
  openai: {
    model: "openai:gpt-test",
    apiKey: "sk-test-SECRET-4f1d9a7c2b",
    start: startFakeOpenAIServer,
    env: (apiKey: string, baseURL: string) => ({ OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL }),
  },
  anthropic: {
    model: "anthropic:claude-sonnet-4-5",
    apiKey: "sk-ant-test-SECRET-9b8c7d6e",
    start: startFakeAnthropicServer,
    env: (apiKey: string, baseURL: string) => ({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: baseURL }),
  },
} as const;

type Row = (typeof PROVIDERS)[keyof typeof PROVIDERS];
type Script<R extends Row> = Parameters<R["start"]>[0];
type Server<R extends Row> = R extends typeof PROVIDERS.openai ? FakeOpenAIServer : FakeAnthropicServer;

export function providerUnderTest<R extends Row>(row: R) {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    closeRequestCaches();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async function setup(script: Script<R>, options: Partial<CreateChatModelOptions> = {}) {
    const server = (await (row.start as (script: Script<R>) => Promise<Server<R>>)(script)) as Server<R>;
    servers.push(server);
    const waits: number[] = [];
    const model = createChatModel(row.model, {
      env: row.env(row.apiKey, server.baseURL),
      limiters: new LimiterPool(),
      ...options,
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
        },
        ...options.retry,
      },
    });
    return { server, model, waits };
  };
}
