import yargs from "yargs";
import { exitCodeFor } from "../../src/cli/exit-codes";
import type { CliIO } from "../../src/cli/io";
import { register } from "../../src/cli/probe";
import { HsearchError, isHsearchError } from "../../src/core/errors";
import type { CliResult } from "../helpers/cli";

/**
 * `hsearch probe …` in-process with captured output, parsed the way src/cli/main.ts parses (strict, yargs failures
 * as bad input, HsearchError codes to exit codes). Until `probe` is registered in src/cli/commands.ts the shared
 * `runCli` cannot reach it; after that, this helper can give way to runCli.
 */
export async function runProbeCli(args: string[], options: { cwd?: string } = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    out: (text) => {
      stdout += text.endsWith("\n") ? text : `${text}\n`;
    },
    err: (text) => {
      stderr += text.endsWith("\n") ? text : `${text}\n`;
    },
    errInline: (text) => {
      stderr += text;
    },
    isTTY: false,
    cwd: options.cwd ?? process.cwd(),
    env: process.env,
  };
  const parser = yargs(args)
    .scriptName("hsearch")
    .strict()
    .demandCommand(1)
    .help()
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new HsearchError("bad_input", message);
    });
  register(parser, io, () => {});
  try {
    await parser.parseAsync();
    return { code: 0, stdout, stderr };
  } catch (error) {
    stderr += isHsearchError(error) ? `hsearch: ${error.describe()}\n` : `${String(error)}\n`;
    return { code: exitCodeFor(error), stdout, stderr };
  }
}
