/** Parameters a model's provider rejected during the run (models/parameter-fallback.ts), one row per model and one. */
import type { LearntRejection } from "../models";
import { type RejectedParameterRow, toRejectedParameter } from "./rows";
import type { StoreContext } from "./store-context";

/** Records a rejection; false when the model's rejection of that parameter was already recorded. */
export function recordRejectedParameter(ctx: StoreContext, rejection: LearntRejection): boolean {
  const result = ctx.db
    .prepare(
      `INSERT OR IGNORE INTO rejected_parameters (model, parameter, replacement, role, message, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(
      rejection.model,
      rejection.parameter,
      rejection.replacement,
      rejection.role,
      rejection.message,
      ctx.now(),
    );
  return result.changes > 0;
}

/** Every recorded rejection, in the order they were learnt. */
export function rejectedParameters(ctx: StoreContext): LearntRejection[] {
  const rows = ctx.db
    .prepare(
      "SELECT model, parameter, replacement, role, message FROM rejected_parameters ORDER BY created_at, rowid",
    )
    .all() as RejectedParameterRow[];
  return rows.map((row) => toRejectedParameter(row, ctx));
}
