import yargs, { type Argv } from "yargs";
import { HsearchError, isHsearchError } from "../core/errors";
import { registerCommands } from "./commands";
import { EXIT_BAD_INPUT, EXIT_FAILED, exitCodeFor } from "./exit-codes";
import { type CliIO, processIO } from "./io";

/**
 * The `hsearch` entry point. Commands throw `HsearchError`; this is the one place that turns errors into messages
 * and exit codes.
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let exitCode = 0;
  const parser: Argv = yargs(argv)
    .scriptName("hsearch")
    .usage("$0 <command> [options]\n\nHarness search for LLM agents that know when to stop.")
    .strict()
    .demandCommand(1, "Name a command; see `hsearch --help`.")
    .recommendCommands()
    .option("color", {
      type: "boolean",
      global: true,
      describe: "colour on a terminal (--no-color, or the NO_COLOR variable, turns it off)",
    })
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((message, error) => {
      // yargs calls this for its own validation (message) and for errors thrown by handlers (error).
      throw error ?? new HsearchError("bad_input", message);
    });
  try {
    await registerCommands(parser, argv, io, (code) => {
      exitCode = code;
    });
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIO): number {
  if (isHsearchError(error)) {
    io.err(`hsearch: ${error.describe()}`);
    if (error.code === "internal" && error.cause instanceof Error && error.cause.stack)
      io.err(error.cause.stack);
    return exitCodeFor(error);
  }
  if (error instanceof Error) {
    io.err(`hsearch: internal error: ${error.stack ?? error.message}`);
    return EXIT_FAILED;
  }
  io.err(`hsearch: ${String(error)}`);
  return EXIT_BAD_INPUT;
}
