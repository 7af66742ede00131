import { hostname } from "node:os";
import { UnrecoverableError, Worker } from "bullmq";
import { canonicalJson } from "../core";
import type { ImageSource } from "../envs";
import { environmentChoicesOf } from "../envs";
import { type Harness, parseHarness, runRollout } from "../harness";
import type { PriceTable } from "../models";
import { createRoleModels, type RoleModelOptions, type RoleModels } from "../models";
import { createJobUsage } from "./job-usage";
import { reachRedis, redactRedisUrl } from "./redis-url";
import {
  DEFAULT_QUEUE,
  parseJobData,
  type RolloutJobData,
  type RolloutJobResult,
  type WorkerModels,
} from "./rollout-job";

/**
 * `hsearch worker`: takes rollout jobs from the queue, runs each like a local rollout (same harness, task, seed and
 * repeat ⇒ same trajectory), and returns the trajectory. It writes nothing of the run: the coordinator scores and
 * stores. A worker that dies mid-rollout stops renewing its job's lock; after `stallSeconds` another worker (or this
 * one restarted) takes the job again from the start, and the coordinator still receives exactly one result.
 */

export interface RolloutWorkerOptions {
  url: string;
  queue?: string;
  /** Rollouts this worker runs at once. */
  concurrency: number;
  /** How long a job's lock lives without renewal before the job counts as stalled and is handed out again. */
  stallSeconds: number;
  prices: PriceTable;
  /** Where a terminal task that names a prebuilt image gets it on this machine (default `auto`). */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /** Builds models from the job's specs: the worker's own environment (API keys, base URLs), providers, cache. */
  modelOptions: Omit<RoleModelOptions, "prices" | "settings" | "concurrency">;
  log?: (line: string) => void;
}

export interface RunningWorker {
  /** Stops taking jobs; waits for the running rollouts unless `force`. */
  close(force?: boolean): Promise<void>;
  /**
   * The shutdown contract (`hsearch worker` on SIGTERM): stops taking jobs, gives the running rollouts up to
   * `graceMs` to finish, then lets go of Redis whether or not it answers. What was still running is abandoned: its
   * job stays in Redis and, its lock no longer renewed, is handed to another worker after `stallSeconds`.
   */
  stop(graceMs: number): Promise<StopOutcome>;
  /** The rollouts running now, as `describeJob` names them. */
  running(): string[];
  /** Resolves when the worker has closed. */
  closed: Promise<void>;
}

export interface StopOutcome {
  /** The rollouts still running when the grace period ended (left to another worker). */
  abandoned: string[];
  /** False when Redis did not let the connections close within their own time limit (they were dropped). */
  closedCleanly: boolean;
}

/** How long closing the connections may take once nothing is running: Redis may be gone. */
const CLOSE_LIMIT_MS = 1000;

/** How often a job may stall (its worker vanished) before it fails the run instead of being handed out again. */
const MAX_STALLS = 5;
/** Parsed harnesses kept by hash: a search evaluates a few candidates at a time, many rollouts each. */
const HARNESS_CACHE = 32;

export async function startRolloutWorker(options: RolloutWorkerOptions): Promise<RunningWorker> {
  await reachRedis(options.url, "--redis");
  const name = options.queue ?? DEFAULT_QUEUE;
  const log = options.log ?? (() => {});
  const harnesses = new Map<string, Harness>();
  const models = new Map<string, RoleModels>();
  // Every model of this worker counts into these; each job gets back what its own rollout used.
  const jobUsage = createJobUsage(options.prices);

  const harnessOf = (sent: RolloutJobData["harness"]): Harness => {
    // Keyed by the limits too: the same files may be within one run's limits and over another's.
    const key = `${sent.hash} ${sent.limits.template_chars} ${sent.limits.total_chars}`;
    const cached = harnesses.get(key);
    if (cached) return cached;
    const harness = parseHarness(sent.files, `harness ${sent.hash.slice(0, 12)}`, sent.limits);
    if (harness.hash !== sent.hash)
      throw new UnrecoverableError(`the harness files hash to ${harness.hash}, the job says ${sent.hash}`);
    if (harnesses.size >= HARNESS_CACHE) harnesses.delete(harnesses.keys().next().value as string);
    harnesses.set(key, harness);
    return harness;
  };
  const modelsOf = (wanted: WorkerModels): RoleModels => {
    const key = canonicalJson(wanted);
    let built = models.get(key);
    if (!built) {
      built = createRoleModels(
        { agent: wanted.agent, judge: "rules", customer: wanted.customer },
        {
          ...options.modelOptions,
          prices: options.prices,
          meters: jobUsage.meters,
          settings: wanted.settings,
          concurrency: options.concurrency,
          ...(wanted.max_reply_chars === undefined ? {} : { maxReplyChars: wanted.max_reply_chars }),
          ...(wanted.call_timeout_ms === undefined ? {} : { timeoutMs: wanted.call_timeout_ms }),
        },
      );
      models.set(key, built);
    }
    return built;
  };

  // The jobs being processed, by job id: what a stop abandons is named from here.
  const running = new Map<string, string>();
  let settled: () => void = () => {};

  const worker = new Worker(
    name,
    async (job): Promise<RolloutJobResult> => {
      const id = job.id ?? job.name;
      running.set(id, describeJob(job.data, id));
      return processJob(job.data);
    },
    {
      connection: { url: options.url },
      concurrency: options.concurrency,
      lockDuration: options.stallSeconds * 1000,
      stalledInterval: options.stallSeconds * 1000,
      maxStalledCount: MAX_STALLS,
    },
  );

  async function processJob(raw: unknown): Promise<RolloutJobResult> {
    let data: RolloutJobData;
    let harness: Harness;
    let roles: RoleModels;
    try {
      data = parseJobData(raw);
      harness = harnessOf(data.harness);
      roles = modelsOf(data.models);
    } catch (error) {
      // A job this worker cannot run (format, version, a model spec it cannot build) fails once, not per retry.
      throw error instanceof UnrecoverableError
        ? error
        : new UnrecoverableError(`${hostname()}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const started = Date.now();
    const { result: trajectory, usage } = await jobUsage.count(() =>
      runRollout({
        harness,
        task: data.task,
        model: roles.agent,
        customerModel: roles.customer,
        prices: options.prices,
        seed: data.seed,
        repeat: data.repeat,
        ...environmentChoicesOf(options),
      }),
    );
    log(
      `${data.task.id} seed ${data.seed} repeat ${data.repeat} (run ${data.run}): ${trajectory.end.reason}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return { trajectory, usage };
  }
  // A job is done once its result is in Redis (BullMQ's completed or failed), not when the rollout returns: a stop
  // that closed the connection in between would lose the result to a rerun elsewhere.
  const done = (job: { id?: string; name: string } | undefined) => {
    if (!job) return;
    running.delete(job.id ?? job.name);
    if (running.size === 0) settled();
  };
  worker.on("completed", done);
  worker.on("failed", done);
  worker.on("error", (error) => log(`redis: ${error.message}`));
  await worker.waitUntilReady();
  log(
    `ready: queue ${name} at ${redactRedisUrl(options.url)}, ${options.concurrency} rollout${options.concurrency === 1 ? "" : "s"} at a time`,
  );
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  worker.on("closed", () => resolveClosed());
  return {
    close: async (force = false) => {
      await worker.close(force);
      resolveClosed();
    },
    running: () => [...running.values()],
    stop: async (graceMs) => {
      // No new job from here; not waiting in pause(), which would wait for the running ones without a limit.
      void worker.pause(true).catch(() => {});
      if (running.size > 0) {
        const done = new Promise<void>((resolve) => {
          settled = resolve;
        });
        await Promise.race([done, delay(graceMs)]);
      }
      const abandoned = [...running.values()];
      // Forced: BullMQ's own close waits for the running jobs and for a Redis that may never answer. Their locks
      // are no longer renewed, so BullMQ's stalled-job check hands the abandoned jobs to another worker.
      const closedCleanly = await Promise.race([
        worker.close(true).then(
          () => true,
          () => false,
        ),
        delay(CLOSE_LIMIT_MS).then(() => false),
      ]);
      resolveClosed();
      return { abandoned, closedCleanly };
    },
    closed,
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A job as a person reads it in a worker's log: its task, seed, repeat and run, or its id if it does not parse. */
export function describeJob(raw: unknown, id: string): string {
  const data = raw as Partial<RolloutJobData> | null;
  return data?.task?.id && typeof data.seed === "number" && typeof data.repeat === "number"
    ? `${data.task.id} seed ${data.seed} repeat ${data.repeat} (run ${data.run}, job ${id})`
    : `job ${id}`;
}
