import { AsyncLocalStorage } from "node:async_hooks";
import type { CallCost, PriceTable } from "../models";
import {
  MODEL_ROLES,
  type ModelRole,
  type ModelUsageRow,
  roleMeters,
  UsageMeter,
  usageRowsOf,
} from "../models";
import type { ChatResponse } from "../models/types";

/**
 * What each rollout's model calls used, on a worker that runs several rollouts at once on the same models: the
 * models count into meters that pass every call on to the meters of the rollout it belongs to (AsyncLocalStorage
 * follows the rollout through the provider stack: cache, retries, limiter). The coordinator adds each rollout's
 * usage to the run's, per role, as if the calls had been made there.
 */
export interface JobUsage {
  /** The meters to build the worker's models with. */
  meters: Record<ModelRole, UsageMeter>;
  /** Runs one rollout and returns what its calls used, per role and model. */
  count<T>(run: () => Promise<T>): Promise<{ result: T; usage: ModelUsageRow[] }>;
}

export function createJobUsage(prices: PriceTable): JobUsage {
  const current = new AsyncLocalStorage<Record<ModelRole, UsageMeter>>();
  const meters = Object.fromEntries(
    MODEL_ROLES.map((role): [ModelRole, UsageMeter] => [
      role,
      new PassOnMeter(prices, () => current.getStore()?.[role]),
    ]),
  ) as Record<ModelRole, UsageMeter>;
  return {
    meters,
    count: async (run) => {
      const own = roleMeters(prices);
      const result = await current.run(own, run);
      return { result, usage: usageRowsOf(own) };
    },
  };
}

/** Counts like any meter, and passes each call on to the meter of the rollout it was made for. */
class PassOnMeter extends UsageMeter {
  readonly #target: () => UsageMeter | undefined;

  constructor(prices: PriceTable, target: () => UsageMeter | undefined) {
    super(prices);
    this.#target = target;
  }

  override record(modelId: string, response: ChatResponse): CallCost {
    this.#target()?.record(modelId, response);
    return super.record(modelId, response);
  }
}
