import { createRng, mapPool } from "../core";
import type { Task } from "../domain";
import type { ImageSource } from "../envs";
import { environmentChoicesOf } from "../envs";
import type { Harness, Trajectory } from "../harness";
import { runRollout } from "../harness";
import type { PriceTable, Semaphore } from "../models";
import type { ChatModel, ChatRequest } from "../models/types";
import { type EpisodeScore, type Judge, scoreEpisode } from "../scoring";

/**
 * Evaluating one harness on a set of tasks: plan the rollouts (pure), then run and score them with bounded
 * concurrency. Rollout seeds depend on the run seed, the task and the repeat only, so every candidate of a run is
 * evaluated on the same seeds as the incumbent.
 */
export interface RolloutJob {
  task: Task;
  repeat: number;
  seed: number;
}

export function rolloutSeed(runSeed: number, taskId: string, repeat: number): number {
  return createRng(runSeed, "rollout", taskId, repeat).int(2 ** 31);
}

export function planRollouts(tasks: readonly Task[], repeats: number, runSeed: number): RolloutJob[] {
  return tasks.flatMap((task) =>
    Array.from({ length: repeats }, (_, repeat) => ({
      task,
      repeat,
      seed: rolloutSeed(runSeed, task.id, repeat),
    })),
  );
}

/** One rollout to perform: what a rollout's outcome depends on besides the models. */
export interface RolloutRequest {
  harness: Harness;
  task: Task;
  seed: number;
  repeat: number;
}

/**
 * Where rollouts run: in this process (the default, `localExecutor`) or elsewhere (the workers' queue, src/workers).
 * Whatever runs it, the same request gives the same trajectory; scoring stays with the caller.
 */
export type RolloutExecutor = (request: RolloutRequest) => Promise<Trajectory>;

export interface EvaluateOptions {
  harness: Harness;
  jobs: readonly RolloutJob[];
  model: ChatModel;
  judge: Judge;
  concurrency: number;
  customerModel?: ChatModel;
  prices?: PriceTable;
  onRequest?: (request: ChatRequest) => void;
  /** Where a terminal task that names a prebuilt image gets it, for the rollouts run here (default `auto`). */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /** Run-wide rollout slots shared with other evaluations; without them, `concurrency` bounds this call alone. */
  slots?: Semaphore;
  /** Called before a rollout starts (retries included); throwing stops new rollouts (a budget), the running ones finish first. */
  beforeRollout?: (job: RolloutJob) => void;
  /**
   * Called once per job with its final outcome (progress, storage): a scored episode, or an infrastructure error
   * that every retry pass met too (or one never retried: a task's failed setup).
   */
  onRollout?: (job: RolloutJob, trajectory: Trajectory, score: EpisodeScore) => void | Promise<void>;
  /**
   * Later passes over the jobs that met an infrastructure error (default 2): a rate limit or an outage that outlasted
   * the per-call retries usually has passed by the end of the batch. Same job, same seed. A task whose setup failed
   * is not run again (`isRetriedInfraError`).
   */
  infraRetryPasses?: number;
  /** Runs each rollout; default: in this process with `model`, `customerModel`, `prices`, `onRequest`, `imageSource`, `allowInternet`. */
  execute?: RolloutExecutor;
}

export interface RolloutOutcome {
  job: RolloutJob;
  trajectory: Trajectory;
  score: EpisodeScore;
}

export const DEFAULT_INFRA_RETRY_PASSES = 2;

/**
 * Whether an episode's infrastructure error may pass when run again: a provider's outage or rate limit may, a task
 * whose setup failed or timed out may not — the same files and script, offline, fail the same way (a setup that never
 * ends would take its whole limit again on every pass).
 */
export function isRetriedInfraError(score: EpisodeScore): boolean {
  return score.kind === "infra_error" && score.error_class !== "task_setup";
}

export async function evaluateJobs(options: EvaluateOptions): Promise<RolloutOutcome[]> {
  const passes = options.infraRetryPasses ?? DEFAULT_INFRA_RETRY_PASSES;
  const outcomes = await runJobs(options, options.jobs, passes > 0);
  for (let pass = 1; pass <= passes; pass++) {
    const failed = outcomes.flatMap((outcome, index) => (isRetriedInfraError(outcome.score) ? [index] : []));
    if (failed.length === 0) break;
    const jobs = failed.map((index) => (outcomes[index] as RolloutOutcome).job);
    const retried = await runJobs(options, jobs, pass < passes);
    failed.forEach((index, i) => {
      outcomes[index] = retried[i] as RolloutOutcome;
    });
  }
  return outcomes;
}

/** Rollouts in this process, on the given models. */
export function localExecutor(
  models: Pick<
    EvaluateOptions,
    "model" | "customerModel" | "prices" | "onRequest" | "imageSource" | "allowInternet"
  >,
): RolloutExecutor {
  return (request) =>
    runRollout({
      ...request,
      model: models.model,
      customerModel: models.customerModel,
      prices: models.prices,
      onRequest: models.onRequest,
      ...environmentChoicesOf(models),
    });
}

/** One pass over `jobs`; `onRollout` is held back for an infrastructure error that a later pass will retry. */
async function runJobs(
  options: EvaluateOptions,
  jobs: readonly RolloutJob[],
  willRetry: boolean,
): Promise<RolloutOutcome[]> {
  const execute = options.execute ?? localExecutor(options);
  const one = async (job: RolloutJob): Promise<RolloutOutcome> => {
    options.beforeRollout?.(job);
    const request = { harness: options.harness, task: job.task, seed: job.seed, repeat: job.repeat };
    const trajectory = await execute(request);
    const score = await scoreEpisode(job.task, trajectory, options.judge);
    if (!(willRetry && isRetriedInfraError(score))) await options.onRollout?.(job, trajectory, score);
    return { job, trajectory, score };
  };
  const slots = options.slots;
  if (!slots) return mapPool(jobs, options.concurrency, one);
  // Shared slots: every job queues at once and runs when a slot frees; after a failure the queued ones give up.
  let failed = false;
  return mapPool(jobs, jobs.length, (job) =>
    slots.run(async () => {
      if (failed) throw new Error("an earlier rollout of this evaluation failed");
      try {
        return await one(job);
      } catch (error) {
        failed = true;
        throw error;
      }
    }),
  );
}
