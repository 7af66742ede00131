import { Queue, QueueEvents } from "bullmq";
import { HsearchError } from "../core/errors";
import type { RolloutExecutor, RolloutRequest } from "../eval/evaluate";
import type { HarnessLimits } from "../harness/load";
import type { Trajectory } from "../harness/trajectory";
import { reachRedis, redactRedisUrl } from "./redis-url";
import {
  DEFAULT_QUEUE,
  hsearchVersion,
  JOB_FORMAT,
  type RolloutJobData,
  rolloutJobId,
  type WorkerModels,
} from "./rollout-job";

/**
 * The coordinator's side of `run --workers`: each rollout becomes a job on the queue, and the executor resolves with
 * the trajectory a worker returns. The coordinator stays the only writer of run.db and the harness repository:
 * workers send back trajectories and nothing else; scoring, storing and the budget stay here.
 */

export interface QueueExecutorOptions {
  url: string;
  queue?: string;
  run: string;
  models: WorkerModels;
  /** The run's harness size limits: a worker checks the files it is sent against the same ones. */
  harnessLimits: HarnessLimits;
}

export interface QueueExecutor {
  execute: RolloutExecutor;
  /** Workers connected to the queue now (0 when Redis does not list its clients). */
  workerCount(): Promise<number>;
  close(): Promise<void>;
}

/** Finished jobs are removed once read; these ages only bound what a crashed coordinator leaves in Redis. */
const KEEP_FINISHED_SECONDS = 24 * 3600;

export async function connectQueueExecutor(options: QueueExecutorOptions): Promise<QueueExecutor> {
  await reachRedis(options.url, "--workers");
  const name = options.queue ?? DEFAULT_QUEUE;
  // Adds fail fast while Redis is away instead of queueing in memory; the events connection blocks and reconnects.
  const queue = new Queue(name, { connection: { url: options.url, enableOfflineQueue: false } });
  const events = new QueueEvents(name, { connection: { url: options.url } });
  // Every waiting rollout listens for the queue closing: as many listeners as rollouts in flight.
  queue.setMaxListeners(0);
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const where = `queue ${name} at ${redactRedisUrl(options.url)}`;

  const execute = async (request: RolloutRequest): Promise<Trajectory> => {
    const data: RolloutJobData = {
      format: JOB_FORMAT,
      hsearch: hsearchVersion(),
      run: options.run,
      harness: { hash: request.harness.hash, files: request.harness.files, limits: options.harnessLimits },
      task: request.task,
      seed: request.seed,
      repeat: request.repeat,
      models: options.models,
    };
    const jobId = rolloutJobId(data);
    // A failure left by an earlier coordinator (a worker without its keys, since fixed) is tried afresh.
    const earlier = await queue.getJob(jobId);
    if (earlier && (await earlier.isFailed())) await earlier.remove();
    const job = await queue.add("rollout", data, {
      jobId,
      attempts: 1,
      removeOnComplete: { age: KEEP_FINISHED_SECONDS },
      removeOnFail: { age: KEEP_FINISHED_SECONDS },
    });
    let result: unknown;
    try {
      result = await job.waitUntilFinished(events);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new HsearchError(
        "internal",
        `a worker failed the rollout of ${request.task.id} (seed ${request.seed}, repeat ${request.repeat}) from ${where}: ${reason}`,
        { cause: error },
      );
    } finally {
      await queue.remove(jobId).catch(() => 0);
    }
    return checkTrajectory(result, request, where);
  };

  return {
    execute,
    workerCount: async () => {
      try {
        return (await queue.getWorkers()).length;
      } catch {
        return 0;
      }
    },
    close: async () => {
      await events.close();
      await queue.close();
    },
  };
}

/** What came back is the trajectory of the rollout asked for (a worker of a mismatched build would show here). */
function checkTrajectory(result: unknown, request: RolloutRequest, where: string): Trajectory {
  const trajectory = result as Partial<Trajectory> | null;
  if (
    trajectory === null ||
    typeof trajectory !== "object" ||
    trajectory.task_id !== request.task.id ||
    trajectory.seed !== request.seed ||
    trajectory.repeat !== request.repeat ||
    trajectory.harness !== request.harness.hash
  )
    throw new HsearchError(
      "internal",
      `${where}: a worker returned something other than the trajectory of ${request.task.id} (seed ${request.seed}, repeat ${request.repeat})`,
    );
  return trajectory as Trajectory;
}
