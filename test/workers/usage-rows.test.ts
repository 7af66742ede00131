import { describe, expect, it } from "vitest";
import { Semaphore } from "../../src/models/limiter";
import { loadPriceTable } from "../../src/models/prices";
import { mergeUsageRows } from "../../src/models/roles";
import type { ChatModel, ChatResponse } from "../../src/models/types";
import { withProviderStack } from "../../src/models/wrap";
import { createJobUsage } from "../../src/workers/job-usage";

/** A provider that answers once released, with `tokens` input tokens (the request's first message says how many). */
function gatedProvider() {
  const waiting: Array<() => void> = [];
  const model: ChatModel = {
    id: "openai:gpt-5-mini",
    provider: "openai",
    generate: async (request) => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      const tokens = Number(request.messages[0]?.content);
      const response: ChatResponse = {
        content: "ok",
        tool_calls: [],
        usage: { input_tokens: tokens, output_tokens: 1 },
        model: "gpt-5-mini",
      };
      return response;
    },
  };
  return { model, release: () => waiting.shift()?.(), waiting: () => waiting.length };
}

const ask = (model: ChatModel, tokens: number) =>
  model.generate({ messages: [{ role: "user", content: String(tokens) }], tools: [], seed: 1 });

describe("usage of each rollout on a worker", () => {
  it("counts each call for the rollout that made it, also when one rollout's call waits for another's slot", async () => {
    const prices = loadPriceTable();
    const usage = createJobUsage(prices);
    const provider = gatedProvider();
    // One provider slot: the second rollout's call is let in when the first one's finishes, from its context.
    const agent = withProviderStack(provider.model, { meter: usage.meters.agent, limiter: new Semaphore(1) });
    const customer = withProviderStack(provider.model, {
      meter: usage.meters.customer,
      limiter: new Semaphore(1),
    });
    const first = usage.count(async () => {
      await ask(agent, 100);
      await ask(customer, 7);
      return "first";
    });
    const second = usage.count(async () => {
      await ask(agent, 1000);
      return "second";
    });
    // Answer calls one at a time as they arrive, in whatever order they do.
    const answering = setInterval(() => provider.release(), 1);
    const [one, two] = await Promise.all([first, second]);
    clearInterval(answering);
    expect(one.result).toBe("first");
    expect(one.usage).toEqual([
      expect.objectContaining({ role: "agent", model: "openai:gpt-5-mini", calls: 1, input_tokens: 100 }),
      expect.objectContaining({ role: "customer", model: "openai:gpt-5-mini", calls: 1, input_tokens: 7 }),
    ]);
    expect(two.usage).toEqual([expect.objectContaining({ role: "agent", calls: 1, input_tokens: 1000 })]);
    expect(two.usage[0]?.usd).toBeGreaterThan(0);
    // The worker's own meters saw every call.
    expect(usage.meters.agent.totals()).toMatchObject({ model_calls: 2, input_tokens: 1100 });
  });

  it("merges rows of the same role and model, unknown cost staying unknown", () => {
    const row = {
      role: "agent" as const,
      model: "m",
      calls: 1,
      cached_calls: 1,
      input_tokens: 10,
      output_tokens: 1,
    };
    const tokens = { cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(
      mergeUsageRows([
        { ...row, ...tokens, usd: 0.5 },
        { ...row, ...tokens, usd: null },
        { ...row, ...tokens, role: "customer", usd: 0.25 },
      ]),
    ).toEqual([
      { ...row, ...tokens, calls: 2, cached_calls: 2, input_tokens: 20, output_tokens: 1 * 2, usd: null },
      { ...row, ...tokens, role: "customer", usd: 0.25 },
    ]);
  });
});
