/** Usage accounting (task model from rollouts, other calls from model_calls) and the run's event log. */
import { canonicalJson } from "../core/canonical-json";
import type { EventRecord, JsonObject, NewModelCall, UsageTotal } from "./records";
import { type EventRow, toEvent } from "./rows";
import type { StoreContext } from "./store-context";

/** Records a proposer/judge/probe call; returns false when its call_key was already recorded. */
export function recordModelCall(ctx: StoreContext, call: NewModelCall): boolean {
  const result = ctx.db
    .prepare(
      `INSERT OR IGNORE INTO model_calls (call_key, role, model, round, input_tokens, output_tokens, usd, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      call.call_key ?? null,
      call.role,
      call.model,
      call.round ?? null,
      call.input_tokens,
      call.output_tokens,
      call.usd,
      ctx.now(),
    );
  return result.changes > 0;
}

/** Tokens and cost by role and model: the task model from rollouts, everything else from model_calls. */
export function usageTotals(ctx: StoreContext): UsageTotal[] {
  return ctx.db
    .prepare(
      `SELECT 'agent' AS role, model, SUM(model_calls) AS calls, SUM(input_tokens) AS input_tokens,
              SUM(output_tokens) AS output_tokens, SUM(usd) AS usd
         FROM rollouts GROUP BY model
       UNION ALL
       SELECT role, model, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(usd)
         FROM model_calls GROUP BY role, model
       ORDER BY role, model`,
    )
    .all() as UsageTotal[];
}

export function totalUsd(ctx: StoreContext): number {
  return usageTotals(ctx).reduce((sum, row) => sum + row.usd, 0);
}

export function logEvent(ctx: StoreContext, kind: string, data: JsonObject = {}): number {
  const result = ctx.db
    .prepare("INSERT INTO events (at, kind, json) VALUES (?, ?, ?)")
    .run(ctx.now(), kind, canonicalJson(data));
  return Number(result.lastInsertRowid);
}

/** Events after `afterId` (for a live viewer), oldest first. */
export function listEvents(
  ctx: StoreContext,
  options: { afterId?: number; limit?: number } = {},
): EventRecord[] {
  const rows = ctx.db
    .prepare("SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?")
    .all(options.afterId ?? 0, options.limit ?? -1) as EventRow[];
  return rows.map(toEvent);
}
