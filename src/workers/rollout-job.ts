import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { hashJson, PACKAGE_ROOT } from "../core";
import type { Task } from "../domain";
import { taskSchema } from "../domain";
import type { HarnessLimits, Trajectory } from "../harness";
import type { ModelUsageRow } from "../models";
import { type ModelSettings, modelSettingsSchema } from "../models";

/**
 * One rollout as a queue job: everything a worker needs to run it, and nothing secret. The harness travels as its
 * files (a few KB; the worker re-parses them and checks the hash), the task as its validated record, the models as
 * specs and settings — each worker takes the API keys from its own environment, so no key ever enters Redis.
 */

/** The queue every worker listens on unless told otherwise. */
export const DEFAULT_QUEUE = "hsearch-rollouts";

/**
 * Bumped when the job's or its result's shape changes, so an old worker refuses a new job instead of misreading it
 * (2: the result carries the rollout's usage beside its trajectory).
 */
export const JOB_FORMAT = 2;

/** The models a rollout uses, as the run's config names them (the judge scores on the coordinator). */
export interface WorkerModels {
  agent: string;
  /** `auto`, `scripted` or `llm:<model>`, as in the search config. */
  customer: string;
  settings: { agent?: ModelSettings; customer?: ModelSettings };
  /** The run's `limits.model_reply_chars`. */
  max_reply_chars?: number;
  /** The run's `limits.model_call_seconds`, in ms. */
  call_timeout_ms?: number;
}

export interface RolloutJobData {
  format: number;
  /** The coordinator's hsearch version: a worker of another version refuses the job (its rollouts could differ). */
  hsearch: string;
  run: string;
  /** The files of the harness and the run's size limits for them (`limits` of the search config). */
  harness: { hash: string; files: Record<string, string>; limits: HarnessLimits };
  task: Task;
  seed: number;
  repeat: number;
  models: WorkerModels;
}

const jobSchema = z
  .object({
    format: z.literal(JOB_FORMAT),
    hsearch: z.string(),
    run: z.string(),
    harness: z
      .object({
        hash: z.string(),
        files: z.record(z.string(), z.string()),
        limits: z
          .object({ template_chars: z.number().int().positive(), total_chars: z.number().int().positive() })
          .strict(),
      })
      .strict(),
    task: taskSchema,
    seed: z.number().int(),
    repeat: z.number().int().min(0),
    models: z
      .object({
        agent: z.string().min(1),
        customer: z.string().min(1),
        settings: z
          .object({ agent: modelSettingsSchema.optional(), customer: modelSettingsSchema.optional() })
          .strict(),
        max_reply_chars: z.number().int().positive().optional(),
        call_timeout_ms: z.number().positive().optional(),
      })
      .strict(),
  })
  .strict();

/**
 * What a worker sends back: the trajectory, and what the rollout's model calls used per role and model (the agent's
 * and the customer's calls are made on the worker, out of reach of the run's meters; the coordinator adds them).
 */
export interface RolloutJobResult {
  trajectory: Trajectory;
  usage: ModelUsageRow[];
}

let version: string | undefined;
export function hsearchVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  return version;
}

/** A job as a worker receives it, checked; the message says what does not fit (it becomes the job's failure). */
export function parseJobData(data: unknown): RolloutJobData {
  const format = (data as { format?: unknown } | null)?.format;
  if (format !== JOB_FORMAT)
    throw new Error(`job format ${String(format)}; this worker reads format ${JOB_FORMAT} (upgrade hsearch)`);
  const parsed = jobSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`malformed rollout job: ${issue?.path.join(".")}: ${issue?.message}`);
  }
  if (parsed.data.hsearch !== hsearchVersion())
    throw new Error(
      `the coordinator runs hsearch ${parsed.data.hsearch}, this worker ${hsearchVersion()}: run the same version everywhere`,
    );
  return parsed.data as RolloutJobData;
}

/**
 * The job's id: the run and a hash of everything the rollout depends on. Adding a job whose id is still in the queue
 * (a resumed coordinator asking again for a rollout a worker is running or has finished) joins that job instead of
 * running the rollout twice. BullMQ ids may not contain ':'.
 */
export function rolloutJobId(data: RolloutJobData): string {
  return `${data.run.replace(/[^A-Za-z0-9._-]/g, "_")}.${hashJson(data).slice(0, 32)}`;
}
