import type { Argv } from "yargs";
import { writeRunReport } from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import { RUN_OR_EVALUATION, type SetExitCode } from "./shared";

const TEXT = commandText("report");

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    TEXT.usage,
    TEXT.describe,
    (yargs) =>
      yargs
        .positional("run", RUN_OR_EVALUATION)
        .option("out", { type: "string", describe: "write the report to this file instead" }),
    async (argv) => {
      const file = await writeRunReport(argv.run, { cwd: io.cwd, out: argv.out });
      io.out(file);
    },
  );
}
