import { Queue, QueueEvents } from "bullmq";
import { z } from "zod";
import { HsearchError } from "../core";
import type { RolloutExecutor, RolloutRequest } from "../eval";
import type { HarnessLimits, Trajectory } from "../harness";
import { firstIssue, trajectorySchema } from "../harness";
import { MODEL_ROLES, type ModelUsageRow, mergeUsageRows } from "../models";
import { roleUsageSchema } from "../scoring";
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
  /** How long Redis may be unreachable mid-run before the waiting rollouts fail (default 30 s). */
  lostAfterMs?: number;
}

export interface QueueExecutor {
  execute: RolloutExecutor;
  /** Workers connected to the queue now (0 when Redis does not list its clients). */
  workerCount(): Promise<number>;
  /** What the rollouts' model calls used on the workers so far, per role and model (for the run's usage). */
  usageRows(): ModelUsageRow[];
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
  // Connection errors surface where they matter: a failed add, or `watchConnection` for the rollouts waiting.
  queue.on("error", () => {});
  events.on("error", () => {});
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  const where = `queue ${name} at ${redactRedisUrl(options.url)}`;
  const connection = await watchConnection(events, where, options.lostAfterMs ?? LOST_AFTER_MS);

  // The same rollout asked for twice at once (a diagnostic and a final evaluation of one commit on one task) is one
  // job: the second waits for the first's result instead of racing it for the job it would remove.
  const inFlight = new Map<string, Promise<Trajectory>>();
  let usage: ModelUsageRow[] = [];
  const execute = (request: RolloutRequest): Promise<Trajectory> => {
    const data = jobData(request);
    const jobId = rolloutJobId(data);
    const running = inFlight.get(jobId);
    if (running) return running;
    const result = runJob(request, data, jobId).finally(() => inFlight.delete(jobId));
    inFlight.set(jobId, result);
    return result;
  };

  const jobData = (request: RolloutRequest): RolloutJobData => ({
    format: JOB_FORMAT,
    hsearch: hsearchVersion(),
    run: options.run,
    harness: { hash: request.harness.hash, files: request.harness.files, limits: options.harnessLimits },
    task: request.task,
    seed: request.seed,
    repeat: request.repeat,
    models: options.models,
  });

  const runJob = async (
    request: RolloutRequest,
    data: RolloutJobData,
    jobId: string,
  ): Promise<Trajectory> => {
    let job: Awaited<ReturnType<typeof queue.add>>;
    try {
      // A failure left by an earlier coordinator (a worker without its keys, since fixed) is tried afresh.
      const earlier = await queue.getJob(jobId);
      if (earlier && (await earlier.isFailed())) await earlier.remove();
      job = await queue.add("rollout", data, {
        jobId,
        attempts: 1,
        removeOnComplete: { age: KEEP_FINISHED_SECONDS },
        removeOnFail: { age: KEEP_FINISHED_SECONDS },
      });
    } catch (error) {
      // Redis went away mid-run: the run stops here (exit 1) and `run --resume` continues it once Redis is back.
      const reason = error instanceof Error ? error.message : String(error);
      throw new HsearchError("provider", `cannot queue a rollout on ${where}: ${reason}`, { cause: error });
    }
    let result: unknown;
    try {
      result = await Promise.race([job.waitUntilFinished(events), connection.lost]);
    } catch (error) {
      if (error instanceof HsearchError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new HsearchError(
        "internal",
        `a worker failed the rollout of ${request.task.id} (seed ${request.seed}, repeat ${request.repeat}) from ${where}: ${reason}`,
        { cause: error },
      );
    } finally {
      await queue.remove(jobId).catch(() => 0);
    }
    const checked = checkResult(result, request, where);
    usage = mergeUsageRows([...usage, ...checked.usage]);
    return checked.trajectory;
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
    usageRows: () => usage.map((row) => ({ ...row })),
    close: async () => {
      const down = connection.down();
      connection.stop();
      // With Redis gone a polite close never finishes: drop the connections instead.
      const closing = Promise.all([events.close(), queue.close()]);
      if (!down) return void (await closing);
      // close() marks them closing (their loops stop retrying) but waits for Redis to say goodbye.
      closing.catch(() => {});
      for (const client of await Promise.all([events.client, queue.client])) client.disconnect();
    },
  };
}

const LOST_AFTER_MS = 30_000;

/**
 * Rejects once the events connection has been down for `lostAfterMs`: the rollouts waiting for their results then
 * fail (the run stops, exit 1, and `run --resume` continues it) instead of waiting for a Redis that is gone.
 */
async function watchConnection(events: QueueEvents, where: string, lostAfterMs: number) {
  let fail: (error: Error) => void = () => {};
  const lost = new Promise<never>((_, reject) => {
    fail = reject;
  });
  lost.catch(() => {}); // observed by whoever is waiting; none may be
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  const client = await events.client;
  const down = () => {
    timer ??= setTimeout(() => {
      failed = true;
      fail(new HsearchError("provider", `lost ${where} for ${lostAfterMs / 1000} s`));
    }, lostAfterMs);
  };
  const up = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  client.on("close", down);
  client.on("ready", up);
  return {
    lost,
    down: () => timer !== undefined || failed,
    stop: () => {
      up();
      client.off("close", down);
      client.off("ready", up);
    },
  };
}

const usageSchema = z.array(roleUsageSchema.extend({ role: z.enum(MODEL_ROLES), model: z.string() }));

/**
 * What came back is the trajectory of the rollout asked for and its usage (a worker of a mismatched build would show
 * here).
 */
function checkResult(
  result: unknown,
  request: RolloutRequest,
  where: string,
): { trajectory: Trajectory; usage: ModelUsageRow[] } {
  const sent = result as { trajectory?: unknown; usage?: unknown } | null;
  const usage = usageSchema.safeParse(sent?.usage);
  // Checked against the stored format (a worker of another build would show here), then matched to the request.
  const checked = trajectorySchema.safeParse(sent?.trajectory);
  const trajectory = checked.success ? checked.data : null;
  if (
    !usage.success ||
    trajectory === null ||
    trajectory.task_id !== request.task.id ||
    trajectory.seed !== request.seed ||
    trajectory.repeat !== request.repeat ||
    trajectory.harness !== request.harness.hash
  ) {
    const issue = checked.success ? null : firstIssue(checked.error);
    const why = issue ? ` (trajectory.${issue.path}: ${issue.message})` : "";
    throw new HsearchError(
      "internal",
      `${where}: a worker returned something other than the trajectory of ${request.task.id} (seed ${request.seed}, repeat ${request.repeat})${why}`,
    );
  }
  return { trajectory, usage: usage.data };
}
