/**
 * What an evaluation directory records about itself (run.db's config of a run of kind `eval`, `probe_beliefs` or
 * `probe_challenge`): the harness evaluated (its content hash and commit in the directory's harness repository), the
 * tasks (the selection, each task's suite and a hash of them all), the models and their settings, and the seed and
 * repeats. Enough to resume the evaluation to the same result, and to show what was evaluated. Checked with zod when
 * read back, so an edited config is bad input naming run.db, never a cast.
 */
import { z } from "zod";
import { HsearchError } from "../core";
import { FAMILIES, KINDS, SPLITS, SUITES } from "../domain";
import { MODEL_ROLES, modelSettingsSchema } from "../models";
import type { RunKind, RunRecord } from "../store/types";

const harnessSchema = z.object({
  /** The directory it was read from (absolute), for people; the evaluation uses the committed copy. */
  dir: z.string(),
  /** How reports name it (the directory as given). */
  label: z.string(),
  /** The content hash of its files (what every trajectory records as `harness`). */
  hash: z.string(),
  /** Its commit in the directory's harness repository (`harness/`). */
  commit: z.string().regex(/^[0-9a-f]{40,64}$/),
});

export const harnessTaskConfigSchema = z.object({
  harness: harnessSchema,
  tasks: z.object({
    selection: z.object({
      split: z.enum(SPLITS).optional(),
      suite: z.enum(SUITES).optional(),
      kind: z.enum(KINDS).optional(),
      family: z.enum(FAMILIES).optional(),
      /** A task directory (absolute) instead of the shipped suites. */
      dir: z.string().optional(),
      /** A plug-in suite's module (absolute) and its content hash: a resume imports it again, refused if it changed. */
      suite_module: z.object({ path: z.string(), sha256: z.string() }).optional(),
    }),
    /** Every task evaluated, in the order of the plan (stored JSON sorts object keys, not arrays). */
    ids: z.array(z.string()),
    /** Each task's suite. */
    suites: z.record(z.string(), z.string()),
    /** The tasks' content hash: a resume refuses tasks that changed since. */
    hash: z.string(),
  }),
  models: z.object({ agent: z.string(), judge: z.string(), customer: z.string() }),
  settings: z.partialRecord(z.enum(MODEL_ROLES), modelSettingsSchema),
  model_call_seconds: z.number().positive().optional(),
  /** The request cache file, when one was used. */
  cache: z.string().optional(),
  seed: z.number().int().min(0),
  concurrency: z.number().int().min(1),
});

export type HarnessTaskConfig = z.infer<typeof harnessTaskConfigSchema>;

export const evalConfigSchema = harnessTaskConfigSchema.extend({
  repeats: z.number().int().min(1),
  max_infra_error_rate: z.number().min(0).max(1),
});
export type EvalConfig = z.infer<typeof evalConfigSchema>;

export const beliefsConfigSchema = harnessTaskConfigSchema.extend({
  resamples: z.number().int().min(1),
  /** The second harness of `--compare`. */
  compare: harnessSchema.optional(),
});
export type BeliefsConfig = z.infer<typeof beliefsConfigSchema>;

export const challengeConfigSchema = harnessTaskConfigSchema.extend({
  runs: z.number().int().min(1),
});
export type ChallengeConfig = z.infer<typeof challengeConfigSchema>;

const SCHEMAS = {
  eval: evalConfigSchema,
  probe_beliefs: beliefsConfigSchema,
  probe_challenge: challengeConfigSchema,
} as const;

type EvaluationKind = Exclude<RunKind, "search">;
export type ConfigOf<K extends EvaluationKind> = z.infer<(typeof SCHEMAS)[K]>;

/** The stored config of an evaluation directory of kind `kind`; bad_input naming run.db and the field otherwise. */
export function storedEvaluationConfig<K extends EvaluationKind>(
  run: RunRecord,
  kind: K,
  file: string,
): ConfigOf<K> {
  const parsed = SCHEMAS[kind].safeParse(run.config);
  if (parsed.success) return parsed.data as ConfigOf<K>;
  const issue = parsed.error.issues[0];
  throw new HsearchError(
    "bad_input",
    `run.db is damaged: the stored evaluation config does not validate (${issue?.message ?? "invalid"}); the directory was left as it is`,
    { file, field: issue?.path.join(".") || undefined },
  );
}
