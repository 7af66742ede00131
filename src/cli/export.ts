import { exportHarness } from "../api";
import { defineCommand } from "./command-list";
import { RUN } from "./shared";

export const register = defineCommand("export", {
  options: (yargs) =>
    yargs
      .positional("run", RUN)
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
  run: async (argv, io) => {
    const exported = await exportHarness(argv.run, argv.candidate, argv.out, { cwd: io.cwd });
    io.out(`exported ${exported.commit.slice(0, 12)} to ${exported.out}`);
  },
});
