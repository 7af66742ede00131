import { z } from "zod";
import { FAMILIES, type Family } from "../domain/task";
import type { RoleUsage } from "../models/usage";
import type { BlockedRates, EvalSummary } from "./summary";

/**
 * A summary as stored (run.db `candidates.summary_json`, `evaluations.summary_json`), checked where the store reads
 * it. Format 1 is `summarize`'s EvalSummary, with what its writers add beside it: an evaluation's objective and role
 * (final-evaluation.ts), an evaluation directory's usage (`hsearch eval`). Strict objects: within one format the
 * fields are fixed, so a renamed or unknown field is an error naming its path, never a silent undefined; a changed
 * shape is a new SUMMARY_FORMAT. Typed against EvalSummary, so the schema and the type cannot drift apart.
 */
export const SUMMARY_FORMAT = 1;

const count = z.number().int().min(0);
const num = z.number();

const blockedRatesShape = {
  n: count,
  m0: num,
  m1: num,
  m2: num,
  m3: num,
  strict_sa: num,
  relaxed_sa: num,
  naive_m2: num,
  authorship: num,
  post_hoc: count,
  post_hoc_rate: num,
  absrec: z.record(z.string(), num),
  timely_recall: num,
  spl: num,
};
const blockedRates: z.ZodType<BlockedRates> = z.strictObject(blockedRatesShape);
const byFamily = z.strictObject(
  Object.fromEntries(FAMILIES.map((family) => [family, blockedRates.nullable()])) as Record<
    Family,
    z.ZodNullable<typeof blockedRates>
  >,
);

const evalSummaryShape = {
  blocked: z.strictObject({ ...blockedRatesShape, by_family: byFamily }).nullable(),
  feasible: z.strictObject({ n: count, solve: num, false_abstention: num }).nullable(),
  n_total: count,
  n_scored: count,
  infra_errors: z.record(z.string(), count),
  context_overflow: count,
};
// Compile-time check that the shape is EvalSummary's (a field added to the type and not here fails to compile).
const evalSummary: z.ZodType<EvalSummary> = z.strictObject(evalSummaryShape);
void evalSummary;

const roleUsage = {
  calls: count,
  cached_calls: count,
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  usd: z.number().min(0).nullable(),
};
/** The usage totals (models/usage.ts RoleUsage) as stored or sent: the one schema of them. */
export const roleUsageSchema: z.ZodObject<typeof roleUsage> = z.object(roleUsage);
const roleUsageTypeCheck: z.ZodType<RoleUsage> = roleUsageSchema;
void roleUsageTypeCheck;

/** A summary of format 1 as read back: EvalSummary and the optional members its writers add. */
export const storedSummarySchema = z.strictObject({
  ...evalSummaryShape,
  /** An evaluation's objective on its split (null where undefined, e.g. no blocked episode). */
  objective: z.number().nullable().optional(),
  /** A final evaluation's harness: the selected one or the seed. */
  role: z.enum(["selected", "seed"]).optional(),
  /** An evaluation directory's model usage (`hsearch eval`), in all and by role. */
  usage: z
    .strictObject({ ...roleUsage, by_role: z.record(z.string(), z.strictObject(roleUsage)) })
    .optional(),
});
export type StoredSummary = z.infer<typeof storedSummarySchema>;

/**
 * A probe's report, the summary of a probe directory's one candidate (`hsearch probe beliefs|challenge`). Its body
 * belongs to the probe and is only shown, so the record boundary checks what names it; the rest is kept as it is.
 */
export const probeReportSchema = z.looseObject({ harness: z.string(), model: z.string(), seed: z.number() });
export type ProbeReport = z.infer<typeof probeReportSchema>;
/** What a probe stores as its report: any report that names its harness, model and seed. */
export type ProbeReportInput = Pick<ProbeReport, "harness" | "model" | "seed">;
