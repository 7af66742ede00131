import { z } from "zod";
import { playbookRuleSchema } from "../../config";
import { FAMILIES } from "../../domain";

/**
 * What the reflector returns: lessons, each a signal that a task had become infeasible (or, `false_alarm`, that an
 * entry stopped a feasible task), the family, the step it became visible and the evidence episodes (their keys).
 */
export const lessonSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("signal"),
      signal: playbookRuleSchema.shape.when.shape.any.element,
      family: z.enum(FAMILIES),
      then: z.enum(["abstain", "verify"]),
      step: z.number().int().min(0),
      evidence: z.array(z.string().min(1)).min(1),
      lesson: z.string().min(1).max(1000),
    })
    .strict(),
  z
    .object({
      kind: z.literal("false_alarm"),
      entry: playbookRuleSchema.shape.id,
      step: z.number().int().min(0),
      evidence: z.array(z.string().min(1)).min(1),
      lesson: z.string().min(1).max(1000),
    })
    .strict(),
]);

export type Lesson = z.output<typeof lessonSchema>;
