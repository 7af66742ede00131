import { describe, expect, it } from "vitest";
import { MockChatModel, textReply } from "../../src/models/mock";
import type { PriceTable } from "../../src/models/prices";
import type { ChatResponse } from "../../src/models/types";
import { UsageMeter, withUsage } from "../../src/models/usage";

const prices: PriceTable = [{ pattern: "openai:priced", input: 1, output: 2 }];

function response(input: number, output: number, cached = false): ChatResponse {
  return {
    content: "x",
    tool_calls: [],
    usage: { input_tokens: input, output_tokens: output },
    model: "m",
    cached,
  };
}

describe("UsageMeter", () => {
  it("sums tokens, cost and calls, counting cached calls apart", () => {
    const meter = new UsageMeter(prices);
    expect(meter.record("openai:priced", response(1_000_000, 0))).toEqual({ usd: 1, priced: true });
    meter.record("openai:priced", response(0, 500_000));
    meter.record("openai:priced", response(2_000_000, 0, true));
    expect(meter.totals()).toEqual({
      model_calls: 2,
      input_tokens: 1_000_000,
      output_tokens: 500_000,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      usd: 2,
      cached_calls: 1,
      cached_input_tokens: 2_000_000,
      cached_output_tokens: 0,
      cached_usd: 2,
      unpriced_models: [],
    });
  });

  it("lists unpriced models and counts their cost as 0", () => {
    const meter = new UsageMeter(prices);
    meter.record("openai:unknown-b", response(10, 10));
    meter.record("openai:unknown-a", response(10, 10));
    meter.record("openai:unknown-b", response(10, 10));
    const totals = meter.totals();
    expect(totals.usd).toBe(0);
    expect(totals.model_calls).toBe(3);
    expect(totals.unpriced_models).toEqual(["openai:unknown-a", "openai:unknown-b"]);
  });
});

describe("withUsage", () => {
  it("records every answered call under the wrapped model's id", async () => {
    const meter = new UsageMeter(prices);
    const model = withUsage(meter)(
      new MockChatModel([textReply("a", { input_tokens: 3, output_tokens: 4 })], { id: "openai:priced" }),
    );
    await model.generate({ messages: [{ role: "user", content: "hi" }], tools: [], seed: 1 });
    expect(meter.totals()).toMatchObject({
      model_calls: 1,
      input_tokens: 3,
      output_tokens: 4,
      usd: 11 / 1_000_000,
    });
  });
});
