/**
 * Token and cost accounting. A `UsageMeter` sums what the calls it saw used and cost; calls served from the request
 * cache are counted apart, because they cost nothing now but did cost when first made.
 */
import type { ChatModelMiddleware } from "./middleware";
import { type CallCost, costOf, type PriceTable } from "./prices";
import type { ChatResponse } from "./types";
import { billedUsageOf } from "./validate-reply";

export interface UsageTotals {
  /** Calls that reached a provider, with their tokens and cost. */
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens: provider prompt-cache reads and writes, where the API reports them. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  usd: number;
  /** Calls answered from the request cache, with the tokens and cost they had when first made. */
  cached_calls: number;
  cached_input_tokens: number;
  cached_output_tokens: number;
  cached_usd: number;
  /** Model ids no price pattern matched: their cost is unknown (`usd` sums the priced ones). Sorted. */
  unpriced_models: string[];
}

export class UsageMeter {
  private readonly prices: PriceTable;
  private readonly sums = {
    model_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    usd: 0,
    cached_calls: 0,
    cached_input_tokens: 0,
    cached_output_tokens: 0,
    cached_usd: 0,
  };
  private readonly unpriced = new Set<string>();
  /** The same sums per model id (a role may use several models, e.g. a judge and its fallback). */
  private readonly perModel = new Map<string, UsageMeter>();

  constructor(prices: PriceTable) {
    this.prices = prices;
  }

  /** Count one answered call of `modelId` (the `provider:model` id, which the price patterns match). */
  record(modelId: string, response: ChatResponse): CallCost {
    const cost = this.add(modelId, response);
    let part = this.perModel.get(modelId);
    if (!part) {
      part = new UsageMeter(this.prices);
      this.perModel.set(modelId, part);
    }
    part.add(modelId, response);
    return cost;
  }

  /** Usage per model id, sorted by id. */
  byModel(): Array<{ model: string; usage: RoleUsage }> {
    return [...this.perModel.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([model, meter]) => ({ model, usage: roleUsageOf(meter.totals()) }));
  }

  private add(modelId: string, response: ChatResponse): CallCost {
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
      this.sums.cache_read_tokens += response.usage.cache_read_tokens ?? 0;
      this.sums.cache_write_tokens += response.usage.cache_write_tokens ?? 0;
      this.sums.usd += cost.usd;
    }
    return cost;
  }

  totals(): UsageTotals {
    return { ...this.sums, unpriced_models: [...this.unpriced].sort() };
  }
}

/**
 * What `status --json`, `eval --json` and the report show for one role: billed calls and their tokens and cost,
 * cached calls apart (they cost nothing now). `usd` is null when a model of the role has no price: unknown, not 0.
 */
export interface RoleUsage {
  calls: number;
  cached_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  usd: number | null;
}

export function roleUsageOf(totals: UsageTotals): RoleUsage {
  return {
    calls: totals.model_calls,
    cached_calls: totals.cached_calls,
    input_tokens: totals.input_tokens,
    output_tokens: totals.output_tokens,
    cache_read_tokens: totals.cache_read_tokens,
    cache_write_tokens: totals.cache_write_tokens,
    usd: totals.unpriced_models.length > 0 && totals.model_calls > 0 ? null : totals.usd,
  };
}

/** The sum of several roles' usage; unknown if any part is. */
export function addRoleUsage(parts: readonly RoleUsage[]): RoleUsage {
  const sum = (key: Exclude<keyof RoleUsage, "usd">) => parts.reduce((total, part) => total + part[key], 0);
  const known = parts.every((part) => part.usd !== null);
  return {
    calls: sum("calls"),
    cached_calls: sum("cached_calls"),
    input_tokens: sum("input_tokens"),
    output_tokens: sum("output_tokens"),
    cache_read_tokens: sum("cache_read_tokens"),
    cache_write_tokens: sum("cache_write_tokens"),
    usd: known ? parts.reduce((total, part) => total + (part.usd ?? 0), 0) : null,
  };
}

/** "$1.2345", or "unknown" when a model has no price. */
export function formatUsd(usd: number | null): string {
  return usd === null ? "unknown" : `$${usd.toFixed(4)}`;
}

/** Counts every answer (a model without the provider stack: the simulator, the oracle). */
export function withUsage(meter: UsageMeter): ChatModelMiddleware {
  return countAnswers(meter, () => true);
}

function countAnswers(meter: UsageMeter, counts: (response: ChatResponse) => boolean): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: async (request, options) => {
      const response = await inner.generate(request, options);
      if (counts(response)) meter.record(inner.id, response);
      return response;
    },
  });
}

/**
 * The provider stack's two meters (wrap.ts): outside the cache, the calls the request cache answered; inside the
 * retry loop, every call the provider billed — each attempt that was answered, an unusable reply that stated its
 * usage included (the provider charged for it even though the model is asked again) — so the billed count is the
 * provider's own.
 */
export function withCachedCalls(meter: UsageMeter): ChatModelMiddleware {
  return countAnswers(meter, (response) => response.cached === true);
}

export function withBilledCalls(meter: UsageMeter): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: async (request, options) => {
      let response: ChatResponse;
      try {
        response = await inner.generate(request, options);
      } catch (error) {
        const usage = billedUsageOf(error);
        if (usage) meter.record(inner.id, { content: null, tool_calls: [], usage, model: inner.id });
        throw error;
      }
      if (!response.cached) meter.record(inner.id, response);
      return response;
    },
  });
}
