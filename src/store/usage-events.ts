/** Usage accounting (per session, role and model; a log of proposer calls) and the run's event log. */
import { canonicalJson } from "../core";
import type { EventRecord, JsonInput, NewModelCall, UsageTotal } from "./records";
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

export function beginUsageSession(ctx: StoreContext): number {
  const row = ctx.db.prepare("SELECT MAX(session) AS last FROM role_usage").get() as { last: number | null };
  return (row.last ?? 0) + 1;
}

export function putSessionUsage(ctx: StoreContext, session: number, rows: readonly UsageTotal[]): void {
  const upsert = ctx.db.prepare(
    `INSERT OR REPLACE INTO role_usage (session, role, model, calls, cached_calls, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  ctx.db.transaction(() => {
    for (const row of rows)
      upsert.run(
        session,
        row.role,
        row.model,
        row.calls,
        row.cached_calls,
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.cache_write_tokens,
        row.usd,
      );
  })();
}

/** Tokens and cost by role and model over every session; usd null when any session could not price the model. */
export function usageTotals(ctx: StoreContext): UsageTotal[] {
  const rows = ctx.db
    .prepare(
      `SELECT role, model, SUM(calls) AS calls, SUM(cached_calls) AS cached_calls,
              SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
              SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
              SUM(usd) AS usd, MAX(usd IS NULL AND calls > 0) AS unpriced
         FROM role_usage GROUP BY role, model ORDER BY role, model`,
    )
    .all() as Array<UsageTotal & { unpriced: number }>;
  return rows.map(({ unpriced, ...row }) => ({ ...row, usd: unpriced ? null : (row.usd ?? 0) }));
}

export function totalUsd(ctx: StoreContext, exceptSession?: number): number {
  const row = ctx.db
    .prepare("SELECT SUM(usd) AS usd FROM role_usage WHERE session IS NOT ?")
    .get(exceptSession ?? null) as { usd: number | null };
  return row.usd ?? 0;
}

export function logEvent(ctx: StoreContext, kind: string, data: JsonInput = {}): number {
  const result = ctx.db
    .prepare("INSERT INTO events (at, kind, json) VALUES (?, ?, ?)")
    .run(ctx.now(), kind, canonicalJson(data));
  return Number(result.lastInsertRowid);
}

/** Events after `afterId` (for a live viewer), oldest first. */
export function listEvents(
  ctx: StoreContext,
  options: { afterId?: number; limit?: number; kind?: string } = {},
): EventRecord[] {
  const rows = ctx.db
    .prepare("SELECT * FROM events WHERE id > ? AND (? IS NULL OR kind = ?) ORDER BY id LIMIT ?")
    .all(options.afterId ?? 0, options.kind ?? null, options.kind ?? null, options.limit ?? -1) as EventRow[];
  return rows.map((row) => toEvent(row, ctx));
}
