import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { badInput, HsearchError } from "../core";
import { detectSandbox, isDirectory, prepareWorkspace, runInSandbox, type SandboxMechanism } from "../envs";

export { DEFAULT_COMMAND_TIMEOUT_MS, SANDBOX_MECHANISMS, type SandboxMechanism } from "../envs";

export interface SandboxCommandOptions {
  /** One element runs as `bash -c ARG`; several run as an argv. */
  command: string[];
  /** Mounted at /workspace and /app, resolved against `cwd`; default a temporary directory, removed after. */
  workspace?: string;
  timeoutSec: number;
  /** Default: detected. */
  mechanism?: SandboxMechanism;
  cwd: string;
  /** Once the sandbox is chosen and the workspace prepared: how the command will run (`workspace` undefined: temporary). */
  onStart?: (how: { mechanism: SandboxMechanism; identity: string; workspace: string | undefined }) => void;
}

export interface SandboxCommandResult {
  output: string;
  /** Null when the command was killed (a timeout). */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

/**
 * One command in the terminal sandbox exactly as an agent's `bash` call runs (same mechanism, identity, mounts,
 * limits and output cut): `hsearch sandbox run`.
 */
export async function runSandboxCommand(options: SandboxCommandOptions): Promise<SandboxCommandResult> {
  if (options.command.length === 0)
    throw badInput("give the command after --, e.g. hsearch sandbox run -- ls -la", { field: "command" });
  if (!Number.isFinite(options.timeoutSec) || options.timeoutSec <= 0)
    throw badInput(`--timeout must be a positive number of seconds, got ${options.timeoutSec}`, {
      field: "timeout",
    });
  const info = await detectSandbox(options.mechanism ? { mechanism: options.mechanism } : {});
  const given = options.workspace === undefined ? undefined : resolve(options.cwd, options.workspace);
  if (given !== undefined && !isDirectory(given))
    throw new HsearchError("not_found", `workspace '${given}' is not a directory`, { field: "workspace" });
  const workspace = given ?? (await mkdtemp(join(tmpdir(), "hsearch-sandbox-run-")));
  try {
    const user = await prepareWorkspace(workspace, info);
    const identity = user ? `uid ${user.uid}` : "the invoking user, no capabilities";
    options.onStart?.({ mechanism: info.mechanism, identity, workspace: given });
    const [first] = options.command;
    const result = await runInSandbox({
      workspace,
      command: options.command.length === 1 && first !== undefined ? first : options.command,
      timeoutMs: options.timeoutSec * 1000,
      mechanism: info.mechanism,
    });
    return {
      output: result.output,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
    };
  } finally {
    if (given === undefined) await rm(workspace, { recursive: true, force: true });
  }
}
