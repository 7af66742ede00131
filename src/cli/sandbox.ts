/**
 * `hsearch sandbox run [--workspace DIR] [--timeout SEC] -- CMD…`: one command in the terminal sandbox, exactly as
 * an agent's `bash` call runs (same mechanism, identity, mounts, limits and 10 KB output cut). One argument runs as
 * `bash -c ARG`; several run as an argv. Exit code 0 when the command succeeded, 1 when it failed or timed out.
 */
import type { Argv } from "yargs";
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  runSandboxCommand,
  SANDBOX_MECHANISMS,
  type SandboxMechanism,
} from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

const TEXT = commandText("sandbox");

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command(TEXT.usage, TEXT.describe, (sandbox) =>
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

/** Runs the command through the library and prints it as `sandbox run` does; the exit code to end with. */
async function sandboxRun(
  io: CliIO,
  options: { command: string[]; workspace?: string; timeoutSec: number; mechanism?: SandboxMechanism },
): Promise<number> {
  const result = await runSandboxCommand({
    ...options,
    cwd: io.cwd,
    onStart: ({ mechanism, identity, workspace }) =>
      io.err(`sandbox: ${mechanism}, as ${identity}, workspace ${workspace ?? "(temporary)"}`),
  });
  if (result.output !== "") io.out(result.output);
  const duration = `${Math.round(result.durationMs)} ms`;
  if (result.timedOut) io.err(`sandbox: timed out after ${options.timeoutSec} s; killed (${duration})`);
  else io.err(`sandbox: exit status ${result.exitCode} (${duration})`);
  return result.exitCode === 0 ? 0 : 1;
}
