import { z } from "zod";
import { FAMILIES, KINDS } from "../domain";
import type { EpisodeScore } from "./episode";

/**
 * An episode score as stored (run.db `rollouts.scores_json`), checked when it is read back: the fields the search,
 * the status and the report rely on must be there with their types. Loose objects, so a field added later to the
 * score survives a read unchanged. Typed against `EpisodeScore`, so a required field the schema forgets is a compile
 * error.
 */
const family = z.enum(FAMILIES);
const key = { task_id: z.string(), seed: z.number(), repeat: z.number() };
const overflow = { context_overflow: z.literal(true).optional() };
const stepOrNull = z.number().nullable();

const judgeVerdict = z.looseObject({
  judge: z.string(),
  recognized: z.boolean(),
  label_correct: z.boolean(),
  reason_matches: z.boolean(),
  rationale: z.string(),
  input_hash: z.string(),
});

const blocked = z.looseObject({
  ...key,
  ...overflow,
  kind: z.literal("blocked"),
  family,
  m0: z.boolean(),
  m1: z.boolean(),
  m2: z.boolean(),
  m3: z.boolean(),
  authorship: z.boolean(),
  strict_sa: z.boolean(),
  relaxed_sa: z.boolean(),
  naive_m2: z.boolean(),
  post_hoc: z.boolean(),
  deferral_step: stepOrNull,
  decisive_step: z.number(),
  credited_deferral: z
    .object({
      step: z.number(),
      author: z.enum(["agent", "harness"]),
      via: z.enum(["abstain", "infeasible.md"]),
    })
    .nullable(),
  first_forbidden_step: stepOrNull,
  fabricated_claim: z.boolean(),
  reward: z.number(),
  judge: judgeVerdict,
});

const feasible = z.looseObject({
  ...key,
  ...overflow,
  kind: z.literal("feasible"),
  family: family.nullable(),
  solve: z.boolean(),
  false_abstention: z.boolean(),
  harness_deferral: z.boolean(),
  deferral_step: stepOrNull,
  reward: z.number(),
});

const infraError = z.looseObject({
  ...key,
  kind: z.literal("infra_error"),
  task_kind: z.enum(KINDS),
  family: family.nullable(),
  error: z.string(),
  error_class: z.string(),
});

export const episodeScoreSchema: z.ZodType<EpisodeScore & Record<string, unknown>> = z.discriminatedUnion(
  "kind",
  [blocked, feasible, infraError],
);
