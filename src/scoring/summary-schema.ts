import { z } from "zod";
import { FAMILIES, type Family } from "../domain";
import type { RoleUsage } from "../models";
import { builtinMetricsOf, type MetricKind } from "./metrics";
import type { EvalSummary } from "./summary";

/**
 * A summary as stored (run.db `candidates.summary_json`, `evaluations.summary_json`), checked where the store reads
 * it: `summarize`'s EvalSummary, with what its writers add beside it (an evaluation's objective and role,
 * final-evaluation.ts; an evaluation directory's usage, `hsearch eval`). Strict objects: a renamed or unknown field
 * is an error naming its path, never a silent undefined.
 *
 * Format 2 (current): each block holds the built-in metrics of its kind (src/scoring/metrics/builtin.ts) under their
 * names, so its metric fields are the catalogue's; one a summary lacks (written before the metric was added) reads
 * as absent and shows "–". Format 1: the hand-written fields of before (no absrec1/absrec3, a timely_recall); read
 * and brought to format 2 (AbsRec@1 and @3 from its AbsRec table). Any other format is refused, naming it.
 */
export const SUMMARY_FORMAT = 2;

const count = z.number().int().min(0);
const num = z.number();

const byFamilyOf = <T extends z.ZodType>(rates: T) =>
  z.strictObject(
    Object.fromEntries(FAMILIES.map((family) => [family, rates.nullable()])) as Record<
      Family,
      z.ZodNullable<T>
    >,
  );

/** A block's metric fields: every built-in metric of `kind`, by name, absent where the summary predates it. */
const metricFields = (kind: MetricKind) =>
  Object.fromEntries(builtinMetricsOf(kind).map((metric) => [metric.name, num.optional()]));

const blockedRatesShape = {
  n: count,
  post_hoc: count,
  absrec: z.record(z.string(), num),
  ...metricFields("blocked"),
};
const blockedRates = z.strictObject(blockedRatesShape);

const evalSummaryShape = {
  blocked: z.strictObject({ ...blockedRatesShape, by_family: byFamilyOf(blockedRates) }).nullable(),
  feasible: z.strictObject({ n: count, ...metricFields("feasible") }).nullable(),
  n_total: count,
  n_scored: count,
  infra_errors: z.record(z.string(), count),
  context_overflow: count,
};

// Format 1, as it was written: read, then brought to format 2.
const v1BlockedShape = {
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
const v1Blocked = z.strictObject(v1BlockedShape);
type V1Blocked = z.infer<typeof v1Blocked>;
const v1SummaryShape = {
  ...evalSummaryShape,
  blocked: z.strictObject({ ...v1BlockedShape, by_family: byFamilyOf(v1Blocked) }).nullable(),
  feasible: z.strictObject({ n: count, solve: num, false_abstention: num }).nullable(),
};

/** A format-1 block in format 2: AbsRec@1 and @3 as the catalogue names them, timely_recall (= AbsRec@1) gone. */
function upgradeBlocked({ timely_recall: _timely, ...rates }: V1Blocked): Record<string, unknown> {
  const absrec = (k: string) => (rates.absrec[k] === undefined ? {} : { [`absrec${k}`]: rates.absrec[k] });
  return { ...rates, ...absrec("1"), ...absrec("3") };
}

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

const writerFields = {
  /** An evaluation's objective on its split (null where undefined, e.g. no blocked episode). */
  objective: z.number().nullable().optional(),
  /** A final evaluation's harness: the selected one or the seed. */
  role: z.enum(["selected", "seed"]).optional(),
  /** An evaluation directory's model usage (`hsearch eval`), in all and by role. */
  usage: z
    .strictObject({ ...roleUsage, by_role: z.record(z.string(), z.strictObject(roleUsage)) })
    .optional(),
};

/** A summary as read back: EvalSummary and the optional members its writers add. */
export type StoredSummary = EvalSummary & {
  objective?: number | null;
  role?: "selected" | "seed";
  usage?: RoleUsage & { by_role: Record<string, RoleUsage> };
};

/** The schema of each format the store reads, each giving the current shape. */
export const storedSummarySchemas: Readonly<Record<number, z.ZodType<StoredSummary>>> = {
  1: z.strictObject({ ...v1SummaryShape, ...writerFields }).transform(
    ({ blocked, ...summary }) =>
      ({
        ...summary,
        blocked: blocked && {
          ...upgradeBlocked(blocked),
          by_family: Object.fromEntries(
            Object.entries(blocked.by_family).map(([family, rates]) => [
              family,
              rates && upgradeBlocked(rates),
            ]),
          ),
        },
      }) as unknown as StoredSummary,
  ),
  // The metric fields are optional in the schema; a block keeps the ones it holds.
  2: z.strictObject({ ...evalSummaryShape, ...writerFields }) as unknown as z.ZodType<StoredSummary>,
};

/**
 * A probe's report, the summary of a probe directory's one candidate (`hsearch probe beliefs|challenge`). Its body
 * belongs to the probe and is only shown, so the record boundary checks what names it; the rest is kept as it is.
 */
export const probeReportSchema = z.looseObject({ harness: z.string(), model: z.string(), seed: z.number() });
export type ProbeReport = z.infer<typeof probeReportSchema>;
/** What a probe stores as its report: any report that names its harness, model and seed. */
export type ProbeReportInput = Pick<ProbeReport, "harness" | "model" | "seed">;
