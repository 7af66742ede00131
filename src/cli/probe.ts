/**
 * `hsearch probe beliefs|challenge`: the know and hold probes (docs/DESIGN.md §6, §8). Thin: options and printing here, the
 * work in the library (src/api/probe.ts).
 */
import type { Argv } from "yargs";
import {
  type BeliefsReport,
  beliefsInDir,
  type ChallengeReport,
  challengeInDir,
  type ProbeSetup,
} from "../api/probe";
import { resolveUserPath } from "../core/paths";
import { loadHarness } from "../harness/load";
import { viewCommand } from "../report/format";
import { DEFAULT_RESAMPLES } from "../scoring";
import { modelConfigOf } from "./eval";
import type { CliIO } from "./io";
import { renderBeliefs, renderChallenge } from "./probe-text";
import { createProgress } from "./progress";
import type { SetExitCode } from "./shared";
import {
  createCommandModels,
  type HarnessTaskArgs,
  harnessTaskOptions,
  planCommandModels,
  recordedTasks,
  selectTasks,
} from "./shared";
import { usageError } from "./usage-error";

interface CommonArgs extends HarnessTaskArgs {
  json: boolean;
  /** The probe's directory (default runs/<id>). */
  out?: string;
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

/** Everything that can be bad input, checked before the probe's directory is made. */
async function setup(
  args: CommonArgs & { judge?: string },
  io: CliIO,
  label: string,
): Promise<ProbeSetup & { finish(): void }> {
  const harnessDir = resolveUserPath(args.harness, io.cwd);
  const harness = loadHarness(harnessDir);
  const selected = await selectTasks(args, io);
  const plan = planCommandModels(args, io);
  const models = createCommandModels(plan, io);
  const progress = createProgress(io, label, { quiet: args.json });
  let dir: string | undefined;
  return {
    harness,
    harnessDir,
    ...(args.tasks !== undefined ? { tasksDir: args.tasks } : {}),
    tasks: selected.tasks,
    recorded: { tasks: recordedTasks(args, selected, io), ...modelConfigOf(plan) },
    models,
    seed: args.seed,
    concurrency: args.concurrency,
    ...(args.out !== undefined ? { out: args.out } : {}),
    cwd: io.cwd,
    onMessage: (text) => {
      dir = text.replace(/^episodes kept in /, "");
      io.err(`hsearch probe: ${text}`);
    },
    onProgress: (done, total) => progress.update(done, total, "episodes"),
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
  const prepared = await setup(args, io, "probe beliefs");
  try {
    const { dir: _dir, ...report } = await beliefsInDir(prepared, {
      ...(args.compare !== undefined ? { compare: args.compare } : {}),
      resamples: args.resamples,
    });
    return report;
  } finally {
    prepared.finish();
  }
}

async function runChallengeCommand(
  args: CommonArgs & { runs: number; judge?: string },
  io: CliIO,
): Promise<ChallengeReport> {
  const prepared = await setup(args, io, "probe challenge");
  try {
    const { dir: _dir, ...report } = await challengeInDir(prepared, { runs: args.runs });
    return report;
  } finally {
    prepared.finish();
  }
}
