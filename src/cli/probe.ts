/**
 * `hsearch probe beliefs|challenge`: the know and hold probes (docs/DESIGN.md §6, §8). Thin: options and printing here, the
 * work in the library (src/api/probe.ts).
 */
import type { Argv } from "yargs";
import {
  DEFAULT_RESAMPLES,
  type EvaluateContext,
  probeBeliefsRequest,
  probeChallengeRequest,
  viewCommand,
} from "../api";
import { commandText } from "./command-list";
import type { CliIO } from "./io";
import { harnessTaskOptions, requestContext, type SetExitCode } from "./shared";
import { renderBeliefs, renderChallenge } from "./text/probe-text";
import { createProgress } from "./text/progress";
import { checkWholeNumber, usageError } from "./usage-error";

const TEXT = commandText("probe");

function commonOptions<T>(yargs: Argv<T>) {
  return harnessTaskOptions(yargs, "probe").option("out", {
    type: "string",
    describe:
      "the probe's directory (default: runs/<id>): every episode's trajectory and the probe's result for it",
  });
}

/** The checks of every probe's flags, then of its own count flag (`--resamples`, `--runs`). */
function checkCommon(
  argv: {
    harness?: string;
    split?: unknown;
    tasks?: unknown;
    seed: number;
    concurrency: number;
  },
  countFlag: string,
  count: number,
): true {
  if (argv.harness === undefined) throw usageError("give --harness");
  if (argv.split === undefined && argv.tasks === undefined) throw usageError("give --split or --tasks");
  checkWholeNumber("seed", argv.seed, 0);
  checkWholeNumber("concurrency", argv.concurrency, 1);
  checkWholeNumber(countFlag, count, 1);
  return true;
}

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command(TEXT.usage, TEXT.describe, (probe) =>
    probe
      .command(
        "beliefs",
        "Read-only episode per task, then the model reports P(feasible): AUROC, Brier, ECE10 with bootstrap CIs",
        (y) =>
          commonOptions(y)
            .option("compare", {
              type: "string",
              describe: "a second harness: paired differences over source pairs",
            })
            .option("resamples", {
              type: "number",
              default: DEFAULT_RESAMPLES,
              describe: "bootstrap resamples",
            })
            .check((argv) => checkCommon(argv, "resamples", argv.resamples)),
        (argv) => printProbe(io, "probe beliefs", argv, renderBeliefs, probeBeliefsRequest),
      )
      .command(
        "challenge",
        "After each trajectory one neutral challenge: transition rates, CRA or Δχ, new false abstentions",
        (y) =>
          commonOptions(y)
            .option("runs", { type: "number", default: 3, describe: "independent runs (repeats) per task" })
            .option("judge", {
              type: "string",
              describe:
                "rules or llm:<model> (pre strict SA); default: the --models file's judge spec, else rules",
            })
            .check((argv) => checkCommon(argv, "runs", argv.runs)),
        (argv) => printProbe(io, "probe challenge", argv, renderChallenge, probeChallengeRequest),
      )
      .demandCommand(1, "Name a probe: beliefs or challenge."),
  );
}

/** The request's context: messages on stderr, a progress line, and where to look once the directory exists. */
function probeContext(io: CliIO, label: string, quiet: boolean) {
  const progress = createProgress(io, label, { quiet });
  let dir: string | undefined;
  return {
    context: {
      ...requestContext(io),
      onMessage: (text: string) => {
        dir = text.replace(/^episodes kept in /, "");
        io.err(`hsearch probe: ${text}`);
      },
      onProgress: (done: number, total: number) => progress.update(done, total, "episodes"),
    },
    finish: () => {
      progress.done();
      if (dir) io.err(`hsearch probe: look into the episodes with: ${viewCommand(dir)}`);
    },
  };
}

/** Runs a probe's request with its context, then prints its report as text, or as JSON without the directory. */
async function printProbe<A extends { harness?: string; json: boolean }, R extends { dir: string }>(
  io: CliIO,
  label: string,
  argv: A,
  render: (report: R) => string,
  request: (args: A & { harness: string }, context: EvaluateContext) => Promise<R>,
): Promise<void> {
  const { json } = argv;
  const { context, finish } = probeContext(io, label, json);
  let result: R;
  try {
    // Checked given (checkCommon); the request's type wants a string.
    result = await request({ ...argv, harness: argv.harness ?? "" }, context);
  } finally {
    finish();
  }
  const { dir: _dir, ...report } = result;
  io.out(json ? JSON.stringify(report, null, 2) : render(result));
}
