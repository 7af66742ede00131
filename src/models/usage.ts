/**
 * Token and cost accounting. A `UsageMeter` sums what the calls it saw used and cost; calls served from the request
 * cache are counted apart, because they cost nothing now but did cost when first made.
 */
import type { ChatModelMiddleware } from "./middleware";
import { type CallCost, costOf, type PriceTable } from "./prices";
import type { ChatResponse } from "./types";

export interface UsageTotals {
  /** Calls that reached a provider, with their tokens and cost. */
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  usd: number;
  /** Calls answered from the request cache, with the tokens and cost they had when first made. */
  cached_calls: number;
  cached_input_tokens: number;
  cached_output_tokens: number;
  cached_usd: number;
  /** Model ids no price pattern matched: their cost is counted as 0. Sorted. */
  unpriced_models: string[];
}

export class UsageMeter {
  private readonly prices: PriceTable;
  private readonly sums = {
    model_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    usd: 0,
    cached_calls: 0,
    cached_input_tokens: 0,
    cached_output_tokens: 0,
    cached_usd: 0,
  };
  private readonly unpriced = new Set<string>();

  constructor(prices: PriceTable) {
    this.prices = prices;
  }

  /** Count one answered call of `modelId` (the `provider:model` id, which the price patterns match). */
  record(modelId: string, response: ChatResponse): CallCost {
    const cost = costOf(this.prices, modelId, response.usage);
    if (!cost.priced) this.unpriced.add(modelId);
    if (response.cached) {
      this.sums.cached_calls += 1;
      this.sums.cached_input_tokens += response.usage.input_tokens;
      this.sums.cached_output_tokens += response.usage.output_tokens;
      this.sums.cached_usd += cost.usd;
    } else {
      this.sums.model_calls += 1;
      this.sums.input_tokens += response.usage.input_tokens;
      this.sums.output_tokens += response.usage.output_tokens;
      this.sums.usd += cost.usd;
    }
    return cost;
  }

  totals(): UsageTotals {
    return { ...this.sums, unpriced_models: [...this.unpriced].sort() };
  }
}

export function withUsage(meter: UsageMeter): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: async (request, options) => {
      const response = await inner.generate(request, options);
      meter.record(inner.id, response);
      return response;
    },
  });
}
