import { resolveUserPath } from "../core";
import { imageSourceChosen, internetAllowed } from "../envs";
import { loadPriceTable } from "../models";
import { offlineProviders } from "../sim";
import { type RunningWorker, startRolloutWorker } from "../workers";

export type { RunningWorker, StopOutcome } from "../workers";

export interface WorkerOptions {
  /** The coordinator's Redis, redis://[user:password@]host:port[/db] (rediss:// for TLS). */
  redis: string;
  /** Default DEFAULT_QUEUE. */
  queue?: string;
  /** Rollouts at once (and model calls in flight per provider). */
  concurrency: number;
  /** A rollout whose worker stops answering this long is handed to another worker. */
  stallSeconds: number;
  /** A request cache file on this machine, resolved against `cwd`. */
  cache?: string;
  cwd: string;
  /** API keys and base URLs: this machine's. */
  env: NodeJS.ProcessEnv;
  onWarning?: (text: string) => void;
  log?: (line: string) => void;
}

/** A worker taking rollouts of `hsearch run --workers` from a Redis queue (`hsearch worker`), with this machine's keys. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  return startRolloutWorker({
    url: options.redis,
    ...(options.queue !== undefined ? { queue: options.queue } : {}),
    concurrency: options.concurrency,
    stallSeconds: options.stallSeconds,
    prices: loadPriceTable(),
    // This machine's default: a search config's `image_source` reaches the rollouts its own process runs.
    imageSource: imageSourceChosen(options.env),
    allowInternet: internetAllowed(options.env),
    modelOptions: {
      env: options.env,
      extraProviders: offlineProviders,
      ...(options.cache ? { cachePath: resolveUserPath(options.cache, options.cwd) } : {}),
      warn: (message) => options.onWarning?.(`warning: ${message}`),
    },
    ...(options.log ? { log: options.log } : {}),
  });
}
