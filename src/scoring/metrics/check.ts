/** Whether a value (a metric module's export) is a metric: the fields of `Metric` with their types. */
import { z } from "zod";
import type { Metric } from "./metric";

const metricSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, "lower-case letters, digits and '_', starting with a letter"),
    label: z.string().min(1),
    short: z.string().min(1).optional(),
    description: z.string().optional(),
    kinds: z.array(z.enum(["blocked", "feasible"])).min(1),
    reducer: z.enum(["rate", "mean"]),
    higherIsBetter: z.boolean(),
    value: z.custom<Metric["value"]>((v) => typeof v === "function", "a function (episode) => value"),
  })
  .loose();

/** The metric, or why it is not one ("name: …", "value: a function …"). */
export function checkMetric(value: unknown): { metric: Metric } | { problem: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { problem: `not an object with name, label, kinds, reducer, higherIsBetter and value` };
  const parsed = metricSchema.safeParse(value);
  if (parsed.success) return { metric: value as Metric };
  const issue = parsed.error.issues[0];
  return { problem: `${issue?.path.join(".") || "metric"}: ${issue?.message ?? "invalid"}` };
}
