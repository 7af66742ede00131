import { type ChildProcess, spawn } from "node:child_process";
import { finished } from "./run-summary";

/** An `hsearch worker` process, started and waited for until it listens on its queue. */
export interface WorkerProcess {
  child: ChildProcess;
  exit: ReturnType<typeof finished>;
  /** Its stderr so far. */
  log(): string;
  /** Rollouts it has finished (it logs each one before returning it). */
  rollouts(): number;
}

export async function startWorkerProcess(options: {
  redisUrl: string;
  queue: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Extra flags (`--concurrency` is 4 unless given). */
  args?: string[];
  /** The node arguments that start the CLI (compiledCli in tests; a benchmark may run SOURCE_CLI or `dist/cli/bin.js`). */
  cli: readonly string[];
  /** Told of the child as soon as it is spawned (for a test's clean-up). */
  spawned?: (child: ChildProcess) => void;
}): Promise<WorkerProcess> {
  const args = options.args ?? [];
  const child = spawn(
    process.execPath,
    [
      ...options.cli,
      "worker",
      "--redis",
      options.redisUrl,
      "--queue",
      options.queue,
      ...(args.includes("--concurrency") ? [] : ["--concurrency", "4"]),
      ...args,
    ],
    { cwd: options.cwd, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...options.env } },
  );
  options.spawned?.(child);
  const exit = finished(child);
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (chunk) => {
      log += chunk;
      if (log.includes("ready: queue")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited ${code} before it was ready: ${log}`)));
  });
  return { child, exit, log: () => log, rollouts: () => rolloutsIn(log) };
}

/** Rollouts a worker's log says it finished. */
export function rolloutsIn(log: string): number {
  return log.split("\n").filter((line) => / seed \d+ repeat \d+ /.test(line)).length;
}
