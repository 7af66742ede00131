/**
 * `hsearch probe beliefs|challenge`: the know and hold probes (docs/DESIGN.md §6, §8). Thin: options and printing here, the
 * work in the library (src/api/probe.ts).
 */
import type { Argv } from "yargs";
import {
  type BeliefsReport,
  type ChallengeReport,
  DEFAULT_RESAMPLES,
  type ProbeRequest,
  probeBeliefsRequest,
  probeChallengeRequest,
  viewCommand,
} from "../api";
import type { CliIO } from "./io";
import { harnessTaskOptions, requestContext, type SetExitCode } from "./shared";
import { renderBeliefs, renderChallenge } from "./text/probe-text";
import { createProgress } from "./text/progress";
import { usageError } from "./usage-error";

interface CommonArgs extends ProbeRequest {
  json: boolean;
}

function commonOptions<T>(yargs: Argv<T>) {
  return harnessTaskOptions(yargs, "probe").option("out", {
    type: "string",
    describe:
      "the probe's directory (default: runs/<id>): every episode's trajectory and the probe's result for it",
  });
}

function checkCommon(argv: {
  harness?: string;
  split?: unknown;
  tasks?: unknown;
  seed: number;
  concurrency: number;
}): true {
  if (argv.harness === undefined) throw usageError("give --harness");
  if (argv.split === undefined && argv.tasks === undefined) throw usageError("give --split or --tasks");
  if (!Number.isInteger(argv.seed) || argv.seed < 0) throw usageError("--seed must be a whole number ≥ 0");
  if (!Number.isInteger(argv.concurrency) || argv.concurrency < 1)
    throw usageError("--concurrency must be a whole number ≥ 1");
  return true;
}

export function register(parser: Argv, io: CliIO, _setExitCode: SetExitCode): void {
  parser.command("probe", "The know and hold probes: beliefs, challenge (docs/DESIGN.md §6)", (probe) =>
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
            .check((argv) => {
              checkCommon(argv);
              if (!Number.isInteger(argv.resamples) || argv.resamples < 1)
                throw usageError("--resamples must be a whole number ≥ 1");
              return true;
            }),
        async (argv) => {
          const report = await runBeliefsCommand({ ...argv, harness: argv.harness ?? "" }, io);
          io.out(argv.json ? JSON.stringify(report, null, 2) : renderBeliefs(report));
        },
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
            .check((argv) => {
              checkCommon(argv);
              if (!Number.isInteger(argv.runs) || argv.runs < 1)
                throw usageError("--runs must be a whole number ≥ 1");
              return true;
            }),
        async (argv) => {
          const report = await runChallengeCommand({ ...argv, harness: argv.harness ?? "" }, io);
          io.out(argv.json ? JSON.stringify(report, null, 2) : renderChallenge(report));
        },
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

async function runBeliefsCommand(
  args: CommonArgs & { compare?: string; resamples: number },
  io: CliIO,
): Promise<BeliefsReport> {
  const { context, finish } = probeContext(io, "probe beliefs", args.json);
  try {
    const { dir: _dir, ...report } = await probeBeliefsRequest(args, context);
    return report;
  } finally {
    finish();
  }
}

async function runChallengeCommand(
  args: CommonArgs & { runs: number; judge?: string },
  io: CliIO,
): Promise<ChallengeReport> {
  const { context, finish } = probeContext(io, "probe challenge", args.json);
  try {
    const { dir: _dir, ...report } = await probeChallengeRequest(args, context);
    return report;
  } finally {
    finish();
  }
}
