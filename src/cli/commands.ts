import type { Argv } from "yargs";
import { register as diffCommand } from "./diff";
import { register as evalCommand } from "./eval";
import { register as exportCommand } from "./export";
import type { CliIO } from "./io";
import { register as probeCommand } from "./probe";
import { register as reportCommand } from "./report";
import { register as runCommand } from "./run";
import { register as sandboxCommand } from "./sandbox";
import type { SetExitCode } from "./shared";
import { register as statusCommand } from "./status";
import { register as tasksCommand } from "./tasks";
import { register as viewCommand } from "./view";

/**
 * Every command of DESIGN §8, one file each. A command module exports `register(parser, io, setExitCode)`.
 */
export function registerCommands(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  const commands: Array<(parser: Argv, io: CliIO, setExitCode: SetExitCode) => void> = [
    runCommand,
    statusCommand,
    diffCommand,
    exportCommand,
    evalCommand,
    tasksCommand,
    probeCommand,
    sandboxCommand,
    reportCommand,
    viewCommand,
  ];
  for (const register of commands) register(parser, io, setExitCode);
}
