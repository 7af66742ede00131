import type { Argv } from "yargs";
import { resolveUserPath } from "../core/paths";
import { DEFAULT_CONCURRENCY } from "../core/pool";
import { loadPriceTable } from "../models/prices";
import { offlineProviders } from "../sim";
import { DEFAULT_QUEUE } from "../workers/rollout-job";
import { startRolloutWorker } from "../workers/rollout-worker";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";
import { untilInterrupted } from "./until-interrupted";
import { usageError } from "./usage-error";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "worker",
    "Run rollouts for `hsearch run --workers` from a Redis queue (API keys from this machine's environment)",
    (yargs) =>
      yargs
        .option("redis", {
          type: "string",
          demandOption: true,
          describe: "the coordinator's Redis, redis://[user:password@]host:port[/db] (rediss:// for TLS)",
        })
        .option("concurrency", {
          type: "number",
          default: DEFAULT_CONCURRENCY,
          describe: "rollouts this worker runs at once (and model calls in flight per provider)",
        })
        .option("queue", {
          type: "string",
          default: DEFAULT_QUEUE,
          describe: "the queue to take rollouts from",
        })
        .option("stall-seconds", {
          type: "number",
          default: 30,
          describe: "a rollout whose worker stops answering this long is handed to another worker",
        })
        .option("cache", {
          type: "string",
          describe: "a request cache file on this machine (answers are replayed for the same request)",
        })
        .check((argv) => {
          for (const flag of ["concurrency", "stall-seconds"] as const)
            if (!Number.isInteger(argv[flag]) || (argv[flag] as number) < 1)
              throw usageError(`--${flag} is a whole number of at least 1`);
          return true;
        }),
    async (argv) => {
      const worker = await startRolloutWorker({
        url: argv.redis,
        queue: argv.queue,
        concurrency: argv.concurrency,
        stallSeconds: argv.stallSeconds,
        prices: loadPriceTable(),
        modelOptions: {
          env: io.env,
          extraProviders: offlineProviders,
          ...(argv.cache ? { cachePath: resolveUserPath(argv.cache, io.cwd) } : {}),
          warn: (message) => io.err(`warning: ${message}`),
        },
        log: (line) => io.err(`hsearch worker: ${line}`),
      });
      await Promise.race([untilInterrupted(), worker.closed]);
      io.err("hsearch worker: stopping after the running rollouts (a second Ctrl-C ends it now)");
      await worker.close();
      io.err("hsearch worker: stopped");
    },
  );
}
