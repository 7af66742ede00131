import yargs, { type Argv, type Options } from "yargs";
import { HsearchError } from "../core";
import { registerCommands } from "./commands";
import { type CliIO, processIO } from "./io";
import { debugWanted, reportError } from "./report-error";

/** The options every command takes (besides yargs' own `--help`); docs/DESIGN.md §8 lists them. */
export const GLOBAL_OPTIONS = {
  color: {
    type: "boolean",
    global: true,
    describe: "colour on a terminal (--no-color, or the NO_COLOR variable, turns it off)",
  },
  debug: {
    type: "boolean",
    global: true,
    describe: "print the stack trace of an unexpected error (also HSEARCH_DEBUG=1)",
  },
} as const satisfies Record<string, Options>;

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
    .options(GLOBAL_OPTIONS)
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((message, error) => {
      // yargs calls this for its own validation (message) and for errors thrown by handlers (error); an error
      // thrown by an option's `coerce` reaches here as its own YError, which is a usage error too.
      if (error?.name === "YError") throw new HsearchError("bad_input", error.message);
      throw error ?? new HsearchError("bad_input", message);
    });
  try {
    await registerCommands(parser, argv, io, (code) => {
      exitCode = code;
    });
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    return reportError(error, io, debugWanted(argv, io.env));
  }
}
