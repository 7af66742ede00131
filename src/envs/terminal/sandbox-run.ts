/**
 * Runs one command in the sandbox with a given mechanism: builds the plan, spawns it, bounds the output, enforces
 * the wall time (killing the whole PID namespace) and tells a sandbox that failed to start apart from a command
 * that failed.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { badInput, HsearchError } from "../../core";
import { CommandOutput, cutMiddle } from "./output-cut";
import { hostEntries, identityTexts, isDirectory, sandboxState, sandboxUserFor } from "./sandbox-host";
import {
  bwrapInvocation,
  commandArgv,
  DEFAULT_LIMITS,
  type Invocation,
  type PlanInput,
  resolveLimits,
  sandboxEnv,
  unshareFstab,
  unshareInvocation,
} from "./sandbox-plan";
import type { SandboxInfo, SandboxLimits, SandboxRequest, SandboxResult } from "./sandbox-types";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LIMIT_FIELDS = [
  "cpuSeconds",
  "memoryMb",
  "addressSpaceMb",
  "maxProcs",
  "maxFileMb",
  "maxOutputBytes",
] as const;

/** Limits must be positive integers; a bad one is the caller's bug, reported as bad input. */
export function checkLimits(limits: SandboxLimits): void {
  for (const field of LIMIT_FIELDS) {
    const value = limits[field];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw badInput(`${field} must be a positive integer, got ${value}`, { field });
  }
}

/** Check a request and resolve its paths; bad requests are the caller's bug, reported as bad input. */
export function planInput(info: SandboxInfo, request: SandboxRequest): PlanInput {
  if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0)
    throw badInput(`timeoutMs must be a positive number, got ${request.timeoutMs}`, { field: "timeoutMs" });
  checkLimits(request);
  const argv = commandArgv(request.command);
  if (argv.length === 0 || argv[0] === "") throw badInput("the command is empty", { field: "command" });
  for (const name of Object.keys(request.env ?? {}))
    if (!ENV_NAME.test(name)) throw badInput(`invalid environment variable name '${name}'`, { field: "env" });
  const workspace = existingDir(request.workspace, "workspace");
  const user = info.privileged ? (request.user ?? sandboxUserFor(workspace)) : undefined;
  return {
    info,
    hostEntries: hostEntries(),
    workspace,
    readOnlyWorkspace: request.readOnlyWorkspace ?? false,
    tmpDir: request.tmpDir === undefined ? undefined : existingDir(request.tmpDir, "tmpDir"),
    testsDir: request.testsDir === undefined ? undefined : existingDir(request.testsDir, "testsDir"),
    logsDir: request.logsDir === undefined ? undefined : existingDir(request.logsDir, "logsDir"),
    user,
    limits: resolveLimits(request),
    argv,
  };
}

function existingDir(path: string, field: string): string {
  if (!isDirectory(path)) throw badInput(`${field} '${path}' is not a directory`, { field });
  return realpathSync(path);
}

/** The process to spawn, and the one-command files (fstab, identity) to remove after it ended. */
export function invocationFor(input: PlanInput): Invocation & { cleanup: () => void } {
  const state = sandboxState();
  const written: string[] = [];
  const oneShot = (prefix: string, text: string) => {
    const path = state.oneShotFile(prefix, text);
    written.push(path);
    return path;
  };
  const cleanup = () => {
    for (const path of written) state.removeFile(path);
  };
  try {
    const texts = input.user ? identityTexts(input.user) : undefined;
    const withShims: PlanInput = { ...input, shimDir: state.shims() };
    const planned: PlanInput = texts
      ? {
          ...withShims,
          identity: { passwd: oneShot("passwd", texts.passwd), group: oneShot("group", texts.group) },
        }
      : withShims;
    if (planned.info.mechanism === "bwrap") return { ...bwrapInvocation(planned), cleanup };
    const skeleton = state.skeleton(planned.hostEntries);
    const fstabPath = oneShot("fstab", unshareFstab({ ...planned, skeleton }));
    return { ...unshareInvocation({ ...planned, skeleton, fstabPath }), cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Run with an already chosen mechanism (detection uses this to probe). */
export async function runWithMechanism(info: SandboxInfo, request: SandboxRequest): Promise<SandboxResult> {
  const input = planInput(info, request);
  const invocation = invocationFor(input);
  try {
    return await spawnInvocation(info, request, input, invocation);
  } finally {
    invocation.cleanup();
  }
}

async function spawnInvocation(
  info: SandboxInfo,
  request: SandboxRequest,
  input: PlanInput,
  invocation: Invocation,
): Promise<SandboxResult> {
  const maxOutputBytes = request.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes;
  const output = new CommandOutput(maxOutputBytes);
  const status: Buffer[] = [];
  const started = performance.now();

  const child = spawn(invocation.file, invocation.args, {
    env: sandboxEnv(request.env),
    stdio: [request.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", "pipe"],
    // A new session: the command has no controlling terminal, so it cannot read from or inject into ours.
    detached: true,
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output.push("stdout", chunk);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output.push("stderr", chunk);
  });
  const statusStream = child.stdio[3];
  statusStream?.on("data", (chunk: Buffer) => status.push(chunk));
  if (request.stdin !== undefined && child.stdin) {
    // A command that never reads its stdin closes the pipe early; that is not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(request.stdin);
  }

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child.pid);
  }, input.limits.timeoutMs);

  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(
          new HsearchError("sandbox", `cannot start ${invocation.file}: ${error.message}`, { cause: error }),
        );
      });
      child.once("close", (exitCode, exitSignal) => {
        clearTimeout(timer);
        resolve({ code: exitCode, signal: exitSignal });
      });
    },
  );
  const durationMs = performance.now() - started;

  if (!timedOut && !setupSucceeded(info, Buffer.concat(status).toString("utf8"))) {
    const detail = output.stderrText().trim() || `exit status ${code ?? signal}`;
    throw new HsearchError(
      "sandbox",
      `the ${info.mechanism} sandbox could not be set up: ${cutMiddle(detail, 2000)}`,
    );
  }
  return output.result(
    { exitCode: code, timedOut, durationMs, mechanism: info.mechanism },
    request.displayBytes,
  );
}

/**
 * The sandbox reports on fd 3 once it is set up: bwrap writes JSON with the child's pid, the unshare setup script
 * writes "ok". Anything else means the command never ran.
 */
function setupSucceeded(info: SandboxInfo, status: string): boolean {
  return info.mechanism === "bwrap" ? status.includes('"child-pid"') : status === "ok";
}

/**
 * Kill the sandbox: the launcher and its process group. The launcher's death kills the PID namespace's init
 * (`--kill-child`, `--die-with-parent`), and the kernel then kills every process left in that namespace.
 */
function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
