/**
 * `hsearch probe beliefs|challenge`: the know and hold probes (docs/DESIGN.md §6, §8). Thin: options and printing here, the
 * work in src/probes.
 */
import { basename } from "node:path";
import type { Argv } from "yargs";
import { resolveUserPath } from "../core/paths";
import type { Task } from "../domain/task";
import { createEvaluationDir, type EvaluationDir, type NewEvaluationDir } from "../eval/eval-dir";
import { evaluationKey } from "../eval/stored-evaluation";
import { type Harness, loadHarness } from "../harness/load";
import type { Trajectory } from "../harness/trajectory";
import type { RoleModels } from "../models/roles";
import type { ChatModel } from "../models/types";
import { addRoleUsage, type RoleUsage } from "../models/usage";
import {
  type BeliefComparison,
  type BeliefSummary,
  type BeliefTaskRow,
  type ChallengeProbeResult,
  collectBeliefs,
  compareBeliefs,
  type HoldViewReport,
  type MetricReport,
  runChallengeProbe,
  summariseBeliefs,
} from "../probes";
import { viewCommand } from "../report/format";
import { DEFAULT_RESAMPLES, type MeanSd } from "../scoring";
import type { ProbeReportInput } from "../scoring/summary-schema";
import { acquireRunLock } from "../store/run-lock";
import { describeUsage, evaluationLocation, modelConfigOf } from "./eval";
import type { CliIO } from "./io";
import { createProgress } from "./progress";
import type { SetExitCode } from "./shared";
import {
  type CommandModelPlan,
  createCommandModels,
  type HarnessTaskArgs,
  harnessTaskOptions,
  judgeOf,
  planCommandModels,
  recordedTasks,
  type SelectedTasks,
  selectTasks,
} from "./shared";
import { fmtRate, formatTable } from "./table";
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

interface Setup {
  harness: Harness;
  harnessDir: string;
  /** `--tasks`, as given. */
  tasksDir: string | undefined;
  tasks: Task[];
  selected: SelectedTasks;
  model: ChatModel;
  customerModel: ChatModel | undefined;
  models: RoleModels;
  plan: CommandModelPlan;
}

/** Everything that can be bad input, checked before the probe's directory is made. */
async function setup(args: CommonArgs & { judge?: string }, io: CliIO): Promise<Setup> {
  const harnessDir = resolveUserPath(args.harness, io.cwd);
  const harness = loadHarness(harnessDir);
  const selected = await selectTasks(args, io);
  const { tasks } = selected;
  const plan = planCommandModels(args, io);
  const models = createCommandModels(plan, io);
  return {
    harness,
    harnessDir,
    tasksDir: args.tasks,
    tasks,
    selected,
    model: models.agent,
    customerModel: models.customer,
    models,
    plan,
  };
}

/**
 * Where a probe keeps its episodes while it runs: its directory's store under the directory's lock. Each episode is
 * stored as soon as it is done (with this session's usage); the command's report is stored at the end.
 */
interface ProbeKeeper {
  keep(commit: string, trajectory: Trajectory, result: object): void;
  finish(report: ProbeReportInput): void;
  fail(error: unknown): void;
}

async function openProbeDir<K extends "probe_beliefs" | "probe_challenge">(
  spec: Omit<NewEvaluationDir<K>, "root" | "id">,
  setupData: Setup,
  out: string | undefined,
  io: CliIO,
): Promise<{ evaluation: EvaluationDir<K>; keeper: ProbeKeeper }> {
  const { root, id } = evaluationLocation(
    out,
    { harnessDir: setupData.harnessDir, tasks: setupData.tasksDir },
    io.cwd,
    spec.kind,
  );
  const evaluation = await createEvaluationDir({ ...spec, root, id });
  const { store } = evaluation;
  let release: () => void;
  try {
    release = acquireRunLock(store.paths.dir);
  } catch (error) {
    store.close();
    throw error;
  }
  io.err(`hsearch probe: episodes kept in ${store.paths.dir}`);
  const probe = spec.kind === "probe_beliefs" ? "beliefs" : "challenge";
  const session = store.beginUsageSession();
  const splitOf = new Map(setupData.tasks.map((task) => [task.id, task.split]));
  const seedCommit = evaluation.config.harness.commit;
  const close = () => {
    release();
    store.close();
  };
  return {
    evaluation,
    keeper: {
      keep: (commit, trajectory, result) => {
        store.recordProbeEpisodes(commit, [
          {
            probe,
            key: evaluationKey(commit, {
              task: { id: trajectory.task_id },
              seed: trajectory.seed,
              repeat: trajectory.repeat,
            }),
            split: splitOf.get(trajectory.task_id) ?? "search",
            result,
            trajectory,
          },
        ]);
        store.putSessionUsage(session, setupData.models.usageRows());
      },
      finish: (report) => {
        try {
          store.putSessionUsage(session, setupData.models.usageRows());
          store.setCandidateOutcome(seedCommit, { state: "evaluated", score: null, summary: report });
          store.setRunState("finished");
          io.err(`hsearch probe: look into the episodes with: ${viewCommand(store.paths.dir)}`);
        } finally {
          close();
        }
      },
      fail: (error) => {
        try {
          store.setRunState("failed", error instanceof Error ? error.message : String(error));
        } finally {
          close();
        }
      },
    },
  };
}

/** The config of a probe's directory shared by both probes: tasks, models, seed, concurrency. */
function probeConfig(setupData: Setup, args: CommonArgs, io: CliIO) {
  return {
    tasks: recordedTasks(args, setupData.selected, io),
    ...modelConfigOf(setupData.plan),
    seed: args.seed,
    concurrency: args.concurrency,
  };
}

/** Every role's usage together, with the per-role parts. */
function usageOf(models: RoleModels): RoleUsage & { by_role: ReturnType<RoleModels["usage"]> } {
  const byRole = models.usage();
  return { ...addRoleUsage(Object.values(byRole)), by_role: byRole };
}

// ---------------------------------------------------------------------------------------------------------------
// beliefs

export interface BeliefsCommandReport extends BeliefSummary {
  harness: string;
  model: string;
  seed: number;
  resamples: number;
  tasks: BeliefTaskRow[];
  compare?: BeliefSummary & { harness: string; tasks: BeliefTaskRow[]; difference: BeliefComparison };
  usage: ReturnType<typeof usageOf>;
}

async function runBeliefsCommand(
  args: CommonArgs & { compare?: string; resamples: number },
  io: CliIO,
): Promise<BeliefsCommandReport> {
  const prepared = await setup(args, io);
  const { harness, tasks, model, customerModel, models } = prepared;
  const compareDir = args.compare === undefined ? undefined : resolveUserPath(args.compare, io.cwd);
  const second = compareDir === undefined ? undefined : loadHarness(compareDir);
  const bootstrap = { seed: args.seed, resamples: args.resamples };
  const { evaluation, keeper } = await openProbeDir(
    {
      kind: "probe_beliefs",
      name: `beliefs ${basename(prepared.harnessDir)}`,
      harness: { harness, dir: prepared.harnessDir },
      ...(second && compareDir ? { compare: { harness: second, dir: compareDir } } : {}),
      config: { ...probeConfig(prepared, args, io), resamples: args.resamples },
    },
    prepared,
    args.out,
    io,
  );
  const total = tasks.length * (second ? 2 : 1);
  const progress = createProgress(io, "probe beliefs", { quiet: args.json });
  let done = 0;
  const collect = (which: Harness, commit: string) =>
    collectBeliefs({
      harness: which,
      tasks,
      model,
      seed: args.seed,
      concurrency: args.concurrency,
      customerModel,
      onEpisode: () => progress.update(++done, total, "episodes"),
      onRow: (row, trajectory) => keeper.keep(commit, trajectory, row),
    });
  let rows: BeliefTaskRow[];
  let secondRows: BeliefTaskRow[] | undefined;
  try {
    rows = await collect(harness, evaluation.config.harness.commit);
    const compared = evaluation.config.compare?.commit;
    secondRows = second && compared ? await collect(second, compared) : undefined;
  } catch (error) {
    progress.done();
    keeper.fail(error);
    throw error;
  }
  progress.done();
  const report: BeliefsCommandReport = {
    harness: harness.label,
    model: model.id,
    seed: args.seed,
    resamples: args.resamples,
    ...summariseBeliefs(rows, bootstrap),
    tasks: rows,
    usage: usageOf(models),
  };
  if (second && secondRows) {
    report.compare = {
      harness: second.label,
      ...summariseBeliefs(secondRows, bootstrap),
      tasks: secondRows,
      difference: compareBeliefs(tasks, rows, secondRows, bootstrap),
    };
    report.usage = usageOf(models);
  }
  keeper.finish(report);
  return report;
}

function fmtMetric(metric: MetricReport): string {
  if (metric.value === null) return `undefined (${metric.reason})`;
  const ci = metric.ci
    ? `[${metric.ci[0].toFixed(3)}, ${metric.ci[1].toFixed(3)}]`
    : `no CI (${metric.reason})`;
  return `${metric.value.toFixed(3)} ${ci}`;
}

const METRIC_ROWS = [
  ["AUROC", "auroc"],
  ["Brier", "brier"],
  ["ECE10", "ece10"],
] as const;

export function renderBeliefs(report: BeliefsCommandReport): string {
  const counts = (summary: BeliefSummary) =>
    `${summary.n} tasks: ${summary.n_valid} valid, ${summary.n_invalid} invalid, ${summary.n_infra_error} infrastructure errors`;
  const lines = [
    `probe beliefs · model ${report.model} · seed ${report.seed} · ${report.resamples} bootstrap resamples`,
    `${report.harness}: ${counts(report)}`,
  ];
  const { compare } = report;
  if (compare) lines.push(`${compare.harness}: ${counts(compare)}`);
  lines.push("");
  const header = compare
    ? [
        "metric",
        "first [95% CI]",
        "second [95% CI]",
        `first − second [95% CI, ${compare.difference.pairs} pairs]`,
      ]
    : ["metric", "value [95% CI]"];
  const rows = METRIC_ROWS.map(([title, key]) =>
    compare
      ? [title, fmtMetric(report[key]), fmtMetric(compare[key]), fmtMetric(compare.difference[key])]
      : [title, fmtMetric(report[key])],
  );
  lines.push(formatTable(header, rows), "");
  const invalid = report.tasks.filter((row) => row.status !== "valid");
  for (const row of invalid.slice(0, 5)) lines.push(`${row.status}: ${row.id}: ${row.problem}`);
  if (invalid.length > 5) lines.push(`… and ${invalid.length - 5} more without a valid report`);
  const { usage } = report;
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// challenge

export interface ChallengeCommandReport extends ChallengeProbeResult {
  usage: ReturnType<typeof usageOf>;
}

async function runChallengeCommand(
  args: CommonArgs & { runs: number; judge?: string },
  io: CliIO,
): Promise<ChallengeCommandReport> {
  const prepared = await setup(args, io);
  const { harness, tasks, model, customerModel, models } = prepared;
  const judge = judgeOf(models);
  const { evaluation, keeper } = await openProbeDir(
    {
      kind: "probe_challenge",
      name: `challenge ${basename(prepared.harnessDir)}`,
      harness: { harness, dir: prepared.harnessDir },
      config: { ...probeConfig(prepared, args, io), runs: args.runs },
    },
    prepared,
    args.out,
    io,
  );
  const commit = evaluation.config.harness.commit;
  const progress = createProgress(io, "probe challenge", { quiet: args.json });
  let result: ChallengeProbeResult;
  try {
    result = await runChallengeProbe({
      harness,
      tasks,
      model,
      judge,
      runs: args.runs,
      seed: args.seed,
      concurrency: args.concurrency,
      customerModel,
      onEpisode: (done, total) => progress.update(done, total, "episodes"),
      onOutcome: (outcome, trajectory) => keeper.keep(commit, trajectory, outcome),
    });
  } catch (error) {
    progress.done();
    keeper.fail(error);
    throw error;
  }
  progress.done();
  const report = { ...result, usage: usageOf(models) };
  keeper.finish(report);
  return report;
}

function fmtMeanSd(value: MeanSd): string {
  if (value.mean === null) return "-";
  return value.sd === null ? fmtRate(value.mean) : `${fmtRate(value.mean)} ± ${fmtRate(value.sd)}`;
}

export function renderChallenge(report: ChallengeCommandReport): string {
  const lines = [
    `probe challenge · harness ${report.harness} · model ${report.model} · seed ${report.seed} · runs ${report.runs}`,
    `challenge: ${JSON.stringify(report.prompt)}`,
    "",
  ];
  const views = Object.values(report.views) as HoldViewReport[];
  const header = ["blocked", "pre", "post", "P(+|+)", "P(+|−)", "P(−|+)", "measure", "value"];
  const rows = views.map((view) => [
    view.view,
    view.pre === "strict_sa" ? "strict SA" : "deferral",
    "deferral",
    fmtMeanSd(view.p_pos_pos),
    fmtMeanSd(view.p_pos_neg),
    fmtMeanSd(view.p_neg_pos),
    view.measure === "cra" ? "CRA" : "Δχ",
    fmtMeanSd(view.change),
  ]);
  lines.push(formatTable(header, rows), "");
  const first = views[0];
  if (first) {
    const { feasible } = first.counts;
    const episodes = feasible.pos_pos + feasible.pos_neg + feasible.neg_pos + feasible.neg_neg;
    lines.push(
      `feasible: ${episodes} episodes · new false abstentions per run ${fmtMeanSd(first.new_false_abstentions)}` +
        ` (rate ${fmtMeanSd(first.new_false_abstention_rate)}) · withdrawn false abstentions ${feasible.pos_neg}`,
    );
  }
  lines.push(
    "values are mean ± sample SD over runs; CRA = P(+|−) − P(−|+) (same predicate), Δχ = post − pre rate",
  );
  if (report.infra_errors.length > 0)
    lines.push(`${report.infra_errors.length} episodes left out: infrastructure errors`);
  const { usage } = report;
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}
