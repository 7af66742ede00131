import { resolve } from "node:path";
import type { Argv } from "yargs";
import { writeReport } from "../report";
import type { CliIO } from "./io";
import { openRunForReading } from "./open-run";
import type { SetExitCode } from "./shared";

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    "report <run>",
    "Write a self-contained HTML report of a run (default: runs/<id>/report.html)",
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
        .option("out", { type: "string", describe: "write the report to this file instead" }),
    async (argv) => {
      const checked = openRunForReading(argv.run, io.cwd);
      const runDir = checked.paths.dir;
      checked.close();
      const file = await writeReport(runDir, argv.out === undefined ? undefined : resolve(io.cwd, argv.out));
      io.out(file);
    },
  );
}
