import { describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/harness/trajectory";
import { loadPriceTable } from "../../src/models/prices";
import { mergeUsageRows, WorkerUsage } from "../../src/search/worker-usage";

const trajectory = (model: string, calls: number, usd: number) =>
  ({
    model,
    usage: { model_calls: calls, input_tokens: 100 * calls, output_tokens: 10 * calls, usd },
  }) as Trajectory;

describe("usage reported back by workers", () => {
  it("sums the agent's calls, tokens and cost per model; an unpriced model's cost is unknown", () => {
    const usage = new WorkerUsage(loadPriceTable());
    usage.add(trajectory("openai:gpt-5-mini", 2, 0.01));
    usage.add(trajectory("openai:gpt-5-mini", 3, 0.02));
    usage.add(trajectory("openai:no-such-model", 1, 0));
    expect(usage.rows()).toEqual([
      expect.objectContaining({ role: "agent", model: "openai:gpt-5-mini", calls: 5, input_tokens: 500 }),
      expect.objectContaining({ model: "openai:no-such-model", calls: 1, usd: null }),
    ]);
    expect(usage.rows()[0]?.usd).toBeCloseTo(0.03, 10);
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
      { ...row, ...tokens, calls: 2, cached_calls: 2, input_tokens: 20, output_tokens: 2, usd: null },
      { ...row, ...tokens, role: "customer", usd: 0.25 },
    ]);
  });
});
