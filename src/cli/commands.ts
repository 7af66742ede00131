import type { Argv } from "yargs";
import type { CliIO } from "./io";

/** Sets the process exit code from inside a command handler (for "finished, but the run failed"). */
export type SetExitCode = (code: number) => void;

/**
 * Every command of DESIGN §8, one file each. A command module exports `register(parser, io, setExitCode)`.
 */
export function registerCommands(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  const commands: Array<(parser: Argv, io: CliIO, setExitCode: SetExitCode) => void> = [];
  for (const register of commands) register(parser, io, setExitCode);
}
