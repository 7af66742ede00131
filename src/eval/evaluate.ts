import { mapPool } from "../core/pool";
import { createRng } from "../core/rng";
import type { Task } from "../domain/task";
import type { Harness } from "../harness/load";
import { runRollout } from "../harness/rollout";
import type { Trajectory } from "../harness/trajectory";
import type { Semaphore } from "../models/limiter";
import type { PriceTable } from "../models/prices";
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

export interface EvaluateOptions {
  harness: Harness;
  jobs: readonly RolloutJob[];
  model: ChatModel;
  judge: Judge;
  concurrency: number;
  customerModel?: ChatModel;
  prices?: PriceTable;
  onRequest?: (request: ChatRequest) => void;
  /** Run-wide rollout slots shared with other evaluations; without them, `concurrency` bounds this call alone. */
  slots?: Semaphore;
  /** Called before a rollout starts; throwing stops new rollouts (a budget), the running ones finish first. */
  beforeRollout?: (job: RolloutJob) => void;
  /** Called after each rollout is scored (progress, storage). */
  onRollout?: (job: RolloutJob, trajectory: Trajectory, score: EpisodeScore) => void | Promise<void>;
}

export interface RolloutOutcome {
  job: RolloutJob;
  trajectory: Trajectory;
  score: EpisodeScore;
}

export async function evaluateJobs(options: EvaluateOptions): Promise<RolloutOutcome[]> {
  const one = async (job: RolloutJob): Promise<RolloutOutcome> => {
    options.beforeRollout?.(job);
    const trajectory = await runRollout({
      harness: options.harness,
      task: job.task,
      model: options.model,
      seed: job.seed,
      repeat: job.repeat,
      customerModel: options.customerModel,
      prices: options.prices,
      onRequest: options.onRequest,
    });
    const score = await scoreEpisode(job.task, trajectory, options.judge);
    await options.onRollout?.(job, trajectory, score);
    return { job, trajectory, score };
  };
  const slots = options.slots;
  if (!slots) return mapPool(options.jobs, options.concurrency, one);
  // Shared slots: every job queues at once and runs when a slot frees; after a failure the queued ones give up.
  let failed = false;
  return mapPool(options.jobs, options.jobs.length, (job) =>
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
