import { digestPrompt } from "../api";
import { defineCommand } from "./command-list";
import { RUN } from "./shared";

/**
 * `hsearch digest RUN --candidate SHA`: what a proposer sees with that candidate as the incumbent — exactly the
 * prompt the `llm` proposer sends (same builder, same budget), so a reader can judge it as a model would.
 */
export const register = defineCommand("digest", {
  options: (yargs) =>
    yargs
      .positional("run", RUN)
      .option("candidate", {
        type: "string",
        default: "incumbent",
        describe: "seed, incumbent, selected, r4p1 (round 4 proposal 1) or a commit prefix",
      })
      .option("round", {
        type: "number",
        describe:
          "as proposed in this round (default: the first round the candidate was a parent or the incumbent)",
      }),
  run: async (argv, io) => {
    io.out(await digestPrompt(argv.run, { cwd: io.cwd, candidate: argv.candidate, round: argv.round }));
  },
});
