/**
 * `hsearch sandbox run [--workspace DIR] [--timeout SEC] -- CMD…`: one command in the terminal sandbox, exactly as
 * an agent's `bash` call runs (same mechanism, identity, mounts, limits and 10 KB output cut). One argument runs as
 * `bash -c ARG`; several run as an argv. Exit code 0 when the command succeeded, 1 when it failed or timed out.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import { badInput, HsearchError } from "../core/errors";
import {
  detectSandbox,
  prepareWorkspace,
  runInSandbox,
  SANDBOX_MECHANISMS,
  type SandboxMechanism,
} from "../envs/terminal/sandbox";
import { isDirectory } from "../envs/terminal/sandbox-host";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "../envs/terminal/terminal-env";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command("sandbox", "Run commands in the terminal sandbox", (sandbox) =>
    sandbox
      .command(
        "run [command..]",
        "Run one command in the sandbox, as an agent's command runs (put the command after --)",
        (run) =>
          run
            .positional("command", { type: "string", array: true, describe: "The command" })
            .option("workspace", {
              type: "string",
              describe:
                "Directory mounted at /workspace and /app (default: a temporary one, removed after). " +
                "When run as root it is handed (chown -R) to the sandbox user.",
            })
            .option("timeout", {
              type: "number",
              default: DEFAULT_COMMAND_TIMEOUT_MS / 1000,
              describe: "Wall time in seconds",
            })
            .option("mechanism", {
              type: "string",
              choices: [...SANDBOX_MECHANISMS],
              describe: "Force a sandbox mechanism (default: detected)",
            }),
        async (argv) => {
          const command = [...(argv.command ?? []), ...argv._.slice(2)].map(String);
          const code = await sandboxRun(io, {
            command,
            workspace: argv.workspace,
            timeoutSec: argv.timeout,
            mechanism: argv.mechanism as SandboxMechanism | undefined,
          });
          setExitCode(code);
        },
      )
      .demandCommand(1, "Name a sandbox subcommand: run"),
  );
}

export async function sandboxRun(
  io: CliIO,
  options: { command: string[]; workspace?: string; timeoutSec: number; mechanism?: SandboxMechanism },
): Promise<number> {
  if (options.command.length === 0)
    throw badInput("give the command after --, e.g. hsearch sandbox run -- ls -la", { field: "command" });
  if (!Number.isFinite(options.timeoutSec) || options.timeoutSec <= 0)
    throw badInput(`--timeout must be a positive number of seconds, got ${options.timeoutSec}`, {
      field: "timeout",
    });
  const info = await detectSandbox(options.mechanism ? { mechanism: options.mechanism } : {});
  const given = options.workspace === undefined ? undefined : resolve(io.cwd, options.workspace);
  if (given !== undefined && !isDirectory(given))
    throw new HsearchError("not_found", `workspace '${given}' is not a directory`, { field: "workspace" });
  const workspace = given ?? (await mkdtemp(join(tmpdir(), "hsearch-sandbox-run-")));
  try {
    const user = await prepareWorkspace(workspace, info);
    const identity = user ? `uid ${user.uid}` : "the invoking user, no capabilities";
    io.err(`sandbox: ${info.mechanism}, as ${identity}, workspace ${given ?? "(temporary)"}`);
    const [first] = options.command;
    const result = await runInSandbox({
      workspace,
      command: options.command.length === 1 && first !== undefined ? first : options.command,
      timeoutMs: options.timeoutSec * 1000,
      mechanism: info.mechanism,
    });
    if (result.output !== "") io.out(result.output);
    const duration = `${Math.round(result.durationMs)} ms`;
    if (result.timedOut) io.err(`sandbox: timed out after ${options.timeoutSec} s; killed (${duration})`);
    else io.err(`sandbox: exit status ${result.exitCode} (${duration})`);
    return result.exitCode === 0 ? 0 : 1;
  } finally {
    if (given === undefined) await rm(workspace, { recursive: true, force: true });
  }
}
