import type { Argv } from "yargs";
import { digestPrompt } from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import type { SetExitCode } from "./shared";

const TEXT = commandText("digest");

/**
 * `hsearch digest RUN --candidate SHA`: what a proposer sees with that candidate as the incumbent — exactly the
 * prompt the `llm` proposer sends (same builder, same budget), so a reader can judge it as a model would.
 */
export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(
    TEXT.usage,
    TEXT.describe,
    (yargs) =>
      yargs
        .positional("run", { type: "string", demandOption: true, describe: "run id or directory" })
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
    async (argv) => {
      io.out(await digestPrompt(argv.run, { cwd: io.cwd, candidate: argv.candidate, round: argv.round }));
    },
  );
}
