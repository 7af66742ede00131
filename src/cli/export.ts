import type { Argv } from "yargs";
import { exportHarness } from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

const TEXT = commandText("export");

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    TEXT.usage,
    TEXT.describe,
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("candidate", {
          type: "string",
          default: "selected",
          describe: "'selected' or a commit SHA (prefix)",
        })
        .option("out", {
          type: "string",
          demandOption: true,
          describe: "directory to write (must not exist or be empty)",
        }),
    async (argv) => {
      const exported = await exportHarness(argv.run, argv.candidate, argv.out, { cwd: io.cwd });
      io.out(`exported ${exported.commit.slice(0, 12)} to ${exported.out}`);
    },
  );
}
