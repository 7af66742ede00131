import { viewRun } from "../api";
import { defineCommand } from "./command-list";
import { HOST_OPTION, portOption, RUN_OR_EVALUATION } from "./shared";
import { untilInterrupted } from "./until-interrupted";

export const register = defineCommand("view", {
  options: (yargs) =>
    yargs
      .positional("run", RUN_OR_EVALUATION)
      .option("port", portOption(0))
      .option("host", HOST_OPTION)
      .option("allow-remote", {
        type: "boolean",
        default: false,
        describe:
          "allow a --host other than loopback (anyone who can reach it and has the token can read the run)",
      }),
  run: async (argv, io) => {
    const viewer = await viewRun(argv.run, {
      cwd: io.cwd,
      host: argv.host,
      port: argv.port,
      allowRemote: argv.allowRemote,
    });
    if (viewer.remote)
      io.err(
        `hsearch view: warning: serving on ${viewer.host}, reachable from other machines; the token is the only protection and the connection is not encrypted`,
      );
    io.out(viewer.url);
    if (viewer.waiting)
      io.err(`hsearch view: no run in ${viewer.dir} yet; the page waits for one to start there`);
    io.err("hsearch view: serving read-only; Ctrl-C stops it");
    await untilInterrupted();
    await viewer.close();
    io.err("hsearch view: stopped");
  },
});
