import type { Argv } from "yargs";
import { COMMANDS, commandNamed } from "./command-list";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

/**
 * Registers the commands of docs/DESIGN.md §8. Only the command the line names is loaded, with its options and handler;
 * otherwise (no command, an unknown one, top-level --help) every command is listed by usage and description alone.
 */
export async function registerCommands(
  parser: Argv,
  argv: readonly string[],
  io: CliIO,
  setExitCode: SetExitCode,
): Promise<void> {
  const named = commandNamed(argv);
  if (named) {
    const { register } = await named.load();
    register(parser, io, setExitCode);
    return;
  }
  for (const { usage, describe } of Object.values(COMMANDS)) parser.command(usage, describe);
}
