import type { Argv } from "yargs";
import { exportHarness } from "../api";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "export <run>",
    "Write a candidate (default: the selected harness) as a self-contained harness directory with provenance.json",
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
