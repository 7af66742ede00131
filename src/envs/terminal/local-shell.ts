/**
 * The terminal environment's local shell (`hsearch agent`): every call runs `bash -c` in a directory of the machine
 * hsearch itself runs on — a benchmark task's container, a developer's checkout — instead of in a sandbox hsearch
 * makes. The tool contract, the effect log and the `infeasible.md` deferral are the terminal environment's own
 * (terminal-env.ts); only where a command runs differs. Each command gets the wall time it is given: on expiry its
 * whole process group is killed, as the sandbox kills its PID namespace.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, stat } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { badInput } from "../../core";
import { CommandOutput } from "./output-cut";
import type { SessionCommand } from "./sandbox-session";
import { SANDBOX_PATHS, type SandboxResult } from "./sandbox-types";
import { type ShellSession, TerminalEnv, type TerminalEnvOptions } from "./terminal-env";

/** Bytes kept per stream of one command (the sandbox's default `maxOutputBytes`). */
const MAX_OUTPUT_BYTES = 1024 * 1024;

export class LocalShellSession implements ShellSession {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly running = new Set<number>();
  /** The file tools' extra path prefix: none where the directory is /app or /workspace, which they take anyway. */
  readonly workdir: string | undefined;

  constructor(
    /** Where every command starts (absolute, resolved). */
    readonly cwd: string,
    /** The environment's private temp dir: long commands are handed over as script files here. */
    readonly commandTmp: string,
  ) {
    this.workdir = cwd === SANDBOX_PATHS.app || cwd === SANDBOX_PATHS.workspace ? undefined : cwd;
  }

  /** Commands run one at a time, in call order, so each change is one call's. */
  run(command: SessionCommand): Promise<SandboxResult> {
    const next = this.queue.then(() => this.runNow(command));
    this.queue = next.catch(() => {});
    return next;
  }

  /** Kill what is still running (a command whose wall time has not run out when the episode ends). */
  async close(): Promise<void> {
    for (const pid of this.running) killGroup(pid);
    await this.queue;
  }

  private runNow(request: SessionCommand): Promise<SandboxResult> {
    const argv = typeof request.command === "string" ? ["bash", "-c", request.command] : [...request.command];
    const [program, ...args] = argv;
    if (program === undefined || program === "") throw badInput("the command is empty", { field: "command" });
    const output = new CommandOutput(MAX_OUTPUT_BYTES);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, {
        cwd: this.cwd,
        env: { ...process.env, ...request.env },
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let timedOut = false;
      const pid = child.pid;
      if (pid !== undefined) this.running.add(pid);
      const timer = setTimeout(() => {
        timedOut = true;
        if (pid !== undefined) killGroup(pid);
      }, request.timeoutMs);
      child.stdout.on("data", (chunk: Buffer) => output.push("stdout", chunk));
      child.stderr.on("data", (chunk: Buffer) =>
        output.push(request.mergeOutput ? "stdout" : "stderr", chunk),
      );
      child.stdin.on("error", () => {});
      child.stdin.end(request.stdin ?? "");
      child.on("error", (error) => {
        clearTimeout(timer);
        if (pid !== undefined) this.running.delete(pid);
        reject(error);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (pid !== undefined) this.running.delete(pid);
        const exitCode = code ?? (signal ? 128 + signalNumber(signal) : null);
        resolve(
          output.result(
            { exitCode, timedOut, durationMs: performance.now() - started, mechanism: "local" },
            request.displayBytes,
          ),
        );
      });
    });
  }
}

/**
 * A terminal environment over `workdir` as it is: no files are written into it and no setup runs (the task's
 * container was set up by whoever started the agent). `workdir` must be an existing directory.
 */
export async function createLocalShellEnv(
  workdir: string,
  options: Pick<TerminalEnvOptions, "commandTimeoutMs" | "agentBudgetMs" | "forbidden" | "network"> = {},
): Promise<TerminalEnv<LocalShellSession>> {
  const info = await stat(workdir).catch(() => undefined);
  if (!info?.isDirectory()) throw badInput(`--workdir '${workdir}' is not a directory`, { field: "workdir" });
  const resolved = await realpath(workdir);
  const dir = await mkdtemp(join(tmpdir(), "hsearch-agent-"));
  const tmp = join(dir, "tmp");
  await mkdir(tmp, { mode: 0o700 });
  const env = new TerminalEnv(
    undefined,
    dir,
    resolved,
    tmp,
    undefined,
    options,
    new LocalShellSession(resolved, tmp),
  );
  try {
    await env.takeInitialSnapshot();
    return env;
  } catch (error) {
    await env.close();
    throw error;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}
