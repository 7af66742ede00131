/**
 * With `run --workers` the agent's calls are made on the workers, out of reach of the run's meters: their usage comes
 * back in each trajectory (tokens, calls and cost of the agent role; a worker's request-cache hits cannot be told
 * apart, and its customer calls are not reported back). Summed here per model, so that `status` and
 * `budget.max_usd` still count the agent's spend.
 */
import type { Trajectory } from "../harness/trajectory";
import { findPrice, type PriceTable } from "../models/prices";
import type { ModelUsageRow } from "../models/roles";

export class WorkerUsage {
  readonly #rows = new Map<string, ModelUsageRow>();
  readonly #prices: PriceTable;

  constructor(prices: PriceTable = []) {
    this.#prices = prices;
  }

  add(trajectory: Trajectory): void {
    const { model, usage } = trajectory;
    const row = this.#rows.get(model) ?? {
      role: "agent",
      model,
      calls: 0,
      cached_calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      usd: findPrice(this.#prices, model) ? 0 : null,
    };
    row.calls += usage.model_calls;
    row.input_tokens += usage.input_tokens;
    row.output_tokens += usage.output_tokens;
    if (row.usd !== null) row.usd += usage.usd;
    this.#rows.set(model, row);
  }

  rows(): ModelUsageRow[] {
    return [...this.#rows.values()].map((row) => ({ ...row }));
  }
}

/** Rows of the same role and model added together (the run's meters and the workers' reports). */
export function mergeUsageRows(rows: readonly ModelUsageRow[]): ModelUsageRow[] {
  const merged = new Map<string, ModelUsageRow>();
  for (const row of rows) {
    const key = `${row.role}\n${row.model}`;
    const known = merged.get(key);
    if (!known) {
      merged.set(key, { ...row });
      continue;
    }
    known.calls += row.calls;
    known.cached_calls += row.cached_calls;
    known.input_tokens += row.input_tokens;
    known.output_tokens += row.output_tokens;
    known.cache_read_tokens += row.cache_read_tokens;
    known.cache_write_tokens += row.cache_write_tokens;
    known.usd = known.usd === null || row.usd === null ? null : known.usd + row.usd;
  }
  return [...merged.values()];
}
