import { resolve } from "node:path";
import type { Argv } from "yargs";
import { writeReport } from "../report";
import type { CliIO } from "./io";
import { openRunDirForReading, storedConfig } from "./open-run";
import type { SetExitCode } from "./shared";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "report <run>",
    "Write a self-contained HTML report of a run or an evaluation (default: <dir>/report.html)",
    (yargs) =>
      yargs
        .positional("run", {
          type: "string",
          demandOption: true,
          describe: "run or evaluation: its id or directory",
        })
        .option("out", { type: "string", describe: "write the report to this file instead" }),
    async (argv) => {
      // A search run's stored config is checked first; an evaluation's is checked as its report reads it.
      const checked = openRunDirForReading(argv.run, io.cwd);
      const runDir = checked.paths.dir;
      try {
        if (checked.getRun()?.kind === "search") storedConfig(checked);
      } finally {
        checked.close();
      }
      const file = await writeReport(runDir, argv.out === undefined ? undefined : resolve(io.cwd, argv.out));
      io.out(file);
    },
  );
}
