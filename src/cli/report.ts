import { writeRunReport } from "../api";
import { defineCommand } from "./command-list";
import { RUN_OR_EVALUATION } from "./shared";

export const register = defineCommand("report", {
  options: (yargs) =>
    yargs
      .positional("run", RUN_OR_EVALUATION)
      .option("out", { type: "string", describe: "write the report to this file instead" }),
  run: async (argv, io) => {
    const file = await writeRunReport(argv.run, { cwd: io.cwd, out: argv.out });
    io.out(file);
  },
});
