import { DEFAULT_QUEUE, startWorker } from "../api";
import { DEFAULT_CONCURRENCY } from "../core";
import { defineCommand } from "./command-list";
import { EXIT_FAILED, EXIT_OK } from "./exit-codes";
import { untilInterrupted } from "./until-interrupted";
import { usageError } from "./usage-error";

export const register = defineCommand("worker", {
  options: (yargs) =>
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
      .option("grace-seconds", {
        type: "number",
        default: DEFAULT_GRACE_SECONDS,
        describe:
          "on SIGTERM or Ctrl-C: how long running rollouts may take to finish; then they are left in Redis for another worker and the worker exits 1 naming them (with none running it exits at once)",
      })
      .option("cache", {
        type: "string",
        describe: "a request cache file on this machine (answers are replayed for the same request)",
      })
      .check((argv) => {
        for (const flag of ["concurrency", "stall-seconds"] as const)
          if (!Number.isInteger(argv[flag]) || (argv[flag] as number) < 1)
            throw usageError(`--${flag} is a whole number of at least 1`);
        const grace = argv["grace-seconds"];
        if (!Number.isFinite(grace) || grace < 0)
          throw usageError("--grace-seconds is a number of at least 0");
        return true;
      }),
  run: async (argv, io, setExitCode) => {
    const worker = await startWorker({
      redis: argv.redis,
      queue: argv.queue,
      concurrency: argv.concurrency,
      stallSeconds: argv.stallSeconds,
      cache: argv.cache,
      cwd: io.cwd,
      env: io.env,
      onWarning: (text) => io.err(text),
      log: (line) => io.err(`hsearch worker: ${line}`),
    });
    await Promise.race([untilInterrupted(), worker.closed]);
    const running = worker.running().length;
    io.err(
      running === 0
        ? "hsearch worker: stopping (no rollout running)"
        : `hsearch worker: stopping: waiting up to ${argv.graceSeconds} s for ${running} running rollout${running === 1 ? "" : "s"} (a second SIGTERM or Ctrl-C ends it now)`,
    );
    const { abandoned, closedCleanly } = await worker.stop(argv.graceSeconds * 1000);
    if (abandoned.length === 0) {
      io.err(
        `hsearch worker: stopped${closedCleanly ? "" : " (Redis did not answer: its connections were dropped)"}`,
      );
      // Nothing of this worker's is left to wait for; a Redis client retrying a lost server would keep it alive.
      io.exit?.(EXIT_OK);
      return;
    }
    io.err(
      `hsearch worker: abandoned ${abandoned.length} rollout${abandoned.length === 1 ? "" : "s"} still running after ${argv.graceSeconds} s: ${abandoned.join("; ")}. Their jobs stay in Redis: another worker takes them once their lock lapses (--stall-seconds ${argv.stallSeconds}).`,
    );
    setExitCode(EXIT_FAILED);
    // The abandoned rollouts are still running in this process (a model call, a command): end it here.
    io.exit?.(EXIT_FAILED);
  },
});

/** Under Kubernetes' default 30 s between SIGTERM and SIGKILL, so the worker says what it abandons before it. */
export const DEFAULT_GRACE_SECONDS = 20;
