import { basename } from "node:path";
import type { Argv } from "yargs";
import { type EvalOutcome, evaluateInDir } from "../api/evaluate-in-dir";
import { evaluationLocation } from "../api/probe";
import { resolveUserPath } from "../core/paths";
import { DEFAULT_CONCURRENCY } from "../core/pool";
import { FAMILIES, type Task } from "../domain/task";
import { IMAGE_SOURCE_VARIABLE, IMAGE_SOURCES, withImageSource } from "../envs/terminal";
import { ALLOW_INTERNET_VARIABLE } from "../envs/terminal/internet";
import { cutMiddle } from "../envs/terminal/output-cut";
import type { HarnessTaskConfig } from "../eval/eval-config";
import { createEvaluationDir, type EvaluationDir, openEvaluationDir } from "../eval/eval-dir";
import { loadHarness } from "../harness/load";
import { formatUsd, type RoleUsage } from "../models/usage";
import { type EvalReport, loadStoredEvaluation } from "../report/eval-data";
import {
  type BlockedRates,
  DEFAULT_MAX_INFRA_ERROR_RATE,
  describeInfraGate,
  type EpisodeScore,
  infraErrorGate,
} from "../scoring";
import { builtinMetricsOf, metricLabel, storedMetric } from "../scoring/metrics";
import { rateText } from "./compare-text";
import type { CliIO } from "./io";
import { createProgress } from "./progress";
import type { SetExitCode } from "./shared";
import {
  type CommandModelPlan,
  createCommandModels,
  type HarnessTaskArgs,
  harnessTaskOptions,
  locateRun,
  planCommandModels,
  recordedTasks,
  recordedTasksAgain,
  selectTasks,
  storedRejections,
} from "./shared";
import { fmtRate, formatTable } from "./table";
import { usageError } from "./usage-error";

export type { EvalReport };

/** Defaults applied in code, so that `--resume` can tell a flag given from one left out. */
const DEFAULTS = { seed: 1, repeats: 1, concurrency: DEFAULT_CONCURRENCY };

/** What `--resume DIR` takes from the directory: none of these may be given beside it. */
const FIXED_BY_THE_DIRECTORY = [
  "harness",
  "split",
  "suite",
  "kind",
  "family",
  "tasks",
  "model",
  "judge",
  "customer",
  "models",
  "set",
  "cache",
  "model-call-seconds",
  "seed",
  "repeats",
  "out",
] as const;

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command(
    "eval",
    "Evaluate one harness on a split or a task directory, keeping every episode in an evaluation directory; prints every metric of docs/DESIGN.md §6",
    (yargs) =>
      harnessTaskOptions(yargs, "evaluate")
        .option("seed", { type: "number", default: undefined, describe: "default 1" })
        .option("concurrency", {
          type: "number",
          default: undefined,
          describe: `default ${DEFAULT_CONCURRENCY}`,
        })
        .option("judge", {
          type: "string",
          describe: "rules or llm:<model>; default: the --models file's judge spec, else rules",
        })
        .option("repeats", { type: "number", describe: "default 1" })
        .option("max-infra-error-rate", {
          type: "number",
          describe: `exit 1 when more than this fraction of episodes meet an infrastructure error (default ${DEFAULT_MAX_INFRA_ERROR_RATE})`,
        })
        .option("out", {
          type: "string",
          describe:
            "the evaluation directory (default: runs/<id>): every episode's trajectory and verifier output",
        })
        .option("resume", {
          type: "string",
          describe: "continue an evaluation that stopped (its directory or id), reusing its stored episodes",
        })
        .option("allow-internet", {
          type: "boolean",
          describe: `give network to the tasks whose task.toml says allow_internet = true (off by default; ${ALLOW_INTERNET_VARIABLE}=1 does the same)`,
        })
        .option("image-source", {
          choices: IMAGE_SOURCES,
          describe: `where a task with a prebuilt image (Harbor's docker_image) gets it: auto pulls it and builds the task's Dockerfile when it cannot, prebuilt or dockerfile force one (default auto; ${IMAGE_SOURCE_VARIABLE} does the same)`,
        })
        .check((argv) => {
          const rate = argv["max-infra-error-rate"];
          if (rate !== undefined && !(rate >= 0 && rate <= 1))
            throw usageError("--max-infra-error-rate must be between 0 and 1");
          if (argv.resume !== undefined) {
            const given = FIXED_BY_THE_DIRECTORY.filter((flag) => argv[flag] !== undefined);
            if (given.length > 0)
              throw usageError(
                `--resume takes the evaluation from its directory; give no ${given.map((flag) => `--${flag}`).join(", ")}`,
              );
          } else {
            if (argv.harness === undefined) throw usageError("give --harness (or --resume DIR)");
            if (argv.split === undefined && argv.tasks === undefined)
              throw usageError("give --split or --tasks");
          }
          for (const name of ["repeats", "concurrency"] as const) {
            const value = argv[name];
            if (value !== undefined && (!Number.isInteger(value) || value < 1))
              throw usageError(`--${name} must be a whole number ≥ 1`);
          }
          if (argv.seed !== undefined && (!Number.isInteger(argv.seed) || argv.seed < 0))
            throw usageError("--seed must be a whole number ≥ 0");
          return true;
        }),
    async (argv) => {
      const options: EvalOptions = {
        harness: argv.harness ?? "",
        split: argv.split,
        suite: argv.suite,
        kind: argv.kind,
        family: argv.family,
        tasks: argv.tasks,
        model: argv.model,
        judge: argv.judge,
        customer: argv.customer,
        seed: argv.seed ?? DEFAULTS.seed,
        repeats: argv.repeats ?? DEFAULTS.repeats,
        concurrency: argv.concurrency ?? DEFAULTS.concurrency,
        models: argv.models,
        cache: argv.cache,
        set: argv.set,
        modelCallSeconds: argv.modelCallSeconds,
        maxInfraErrorRate: argv.maxInfraErrorRate,
        out: argv.out,
        quiet: argv.json,
      };
      // The sandbox reads the grant where it makes each episode (workers read their own environment).
      const before = process.env[ALLOW_INTERNET_VARIABLE];
      if (argv.allowInternet) process.env[ALLOW_INTERNET_VARIABLE] = "1";
      const { report, scores, maxInfraErrorRate } = await withImageSource(argv.imageSource, () =>
        argv.resume === undefined
          ? runEval(options, io)
          : resumeEval(argv.resume, { ...options, concurrency: argv.concurrency }, io),
      ).finally(() => {
        if (before === undefined) delete process.env[ALLOW_INTERNET_VARIABLE];
        else process.env[ALLOW_INTERNET_VARIABLE] = before;
      });
      io.out(argv.json ? JSON.stringify(report, null, 2) : renderEvalReport(report));
      const gate = infraErrorGate(scores, maxInfraErrorRate);
      if (gate) {
        io.err(`hsearch eval: ${describeInfraGate(gate)}`);
        setExitCode(1);
      }
    },
  );
}

export interface EvalOptions extends HarnessTaskArgs {
  judge?: string;
  repeats: number;
  /** Default DEFAULT_MAX_INFRA_ERROR_RATE. */
  maxInfraErrorRate?: number;
  /** The evaluation directory; default `runs/<id>` under the working directory. */
  out?: string;
  quiet?: boolean;
}

export type { EvalOutcome };

/**
 * Evaluates a harness, keeping every episode in a new evaluation directory. Everything that can be bad input (the
 * harness, the tasks, the models) is checked before the directory is made, so a refused evaluation leaves none.
 */
export async function runEval(options: EvalOptions, io: CliIO): Promise<EvalOutcome> {
  const harnessDir = resolveUserPath(options.harness, io.cwd);
  const harness = loadHarness(harnessDir);
  const selected = await selectTasks(options, io);
  const plan = planCommandModels(options, io);
  const rejections = storedRejections(io);
  const models = createCommandModels(plan, io, rejections.memory);
  const maxInfraErrorRate = options.maxInfraErrorRate ?? DEFAULT_MAX_INFRA_ERROR_RATE;
  const { root, id } = evaluationLocation(options.out, { harnessDir, tasks: options.tasks }, io.cwd);
  const evaluation = await createEvaluationDir({
    root,
    id,
    kind: "eval",
    name: `eval ${basename(harnessDir)}`,
    harness: { harness, dir: harnessDir },
    config: {
      tasks: recordedTasks(options, selected, io),
      ...modelConfigOf(plan),
      seed: options.seed,
      concurrency: options.concurrency,
      repeats: options.repeats,
      max_infra_error_rate: maxInfraErrorRate,
    },
  });
  rejections.keepIn(evaluation.store);
  return evaluateWithProgress(
    evaluation,
    selected.tasks,
    models,
    { maxInfraErrorRate, quiet: options.quiet },
    io,
  );
}

/**
 * Continues an evaluation that stopped (Ctrl-C, SIGKILL, a failure): the same harness (from its commit), tasks,
 * models and seeds; the stored episodes are reused and only the others run, so it ends as an uninterrupted one.
 */
export async function resumeEval(
  target: string,
  options: { concurrency?: number; maxInfraErrorRate?: number; quiet?: boolean },
  io: CliIO,
): Promise<EvalOutcome> {
  const evaluation = await openEvaluationDir(locateRun(target, io.cwd), "eval");
  const { store, run, config } = evaluation;
  const maxInfraErrorRate = options.maxInfraErrorRate ?? config.max_infra_error_rate;
  if (run.state === "finished") {
    try {
      io.err(`hsearch eval: ${run.id} already finished at ${run.ended_at}; nothing to resume`);
      const stored = loadStoredEvaluation(store);
      return {
        report: stored.report,
        scores: stored.rollouts.map((rollout) => rollout.scores as EpisodeScore),
        maxInfraErrorRate,
        dir: store.paths.dir,
      };
    } finally {
      store.close();
    }
  }
  let tasks: Task[];
  let models: ReturnType<typeof createCommandModels>;
  try {
    tasks = await recordedTasksAgain(config.tasks, io, store, (text) => io.err(`hsearch eval: ${text}`));
    const plan: CommandModelPlan = {
      specs: config.models,
      settings: config.settings,
      ...(config.model_call_seconds ? { modelCallSeconds: config.model_call_seconds } : {}),
      ...(config.cache ? { cachePath: config.cache } : {}),
      concurrency: options.concurrency ?? config.concurrency,
    };
    // What earlier sessions' providers rejected is left out from the first call.
    const rejections = storedRejections(io, store.rejectedParameters());
    rejections.keepIn(store);
    models = createCommandModels(plan, io, rejections.memory);
  } catch (error) {
    store.close();
    throw error;
  }
  return evaluateWithProgress(evaluation, tasks, models, { ...options, maxInfraErrorRate }, io);
}

/** The library's evaluateInDir with its messages on stderr and a progress line. */
async function evaluateWithProgress(
  evaluation: EvaluationDir<"eval">,
  tasks: readonly Task[],
  models: ReturnType<typeof createCommandModels>,
  options: { maxInfraErrorRate: number; concurrency?: number; quiet?: boolean },
  io: CliIO,
): Promise<EvalOutcome> {
  const progress = createProgress(io, "eval", { quiet: options.quiet });
  try {
    return await evaluateInDir(evaluation, tasks, models, {
      ...options,
      onMessage: (text) => io.err(`hsearch eval: ${text}`),
      onProgress: (done, total) => progress.update(done, total, "rollouts"),
    });
  } finally {
    progress.done();
  }
}

/** What an evaluation directory records of its models: each role's spec, their settings, timeout and cache. */
export function modelConfigOf(
  plan: CommandModelPlan,
): Pick<HarnessTaskConfig, "models" | "settings" | "model_call_seconds" | "cache"> {
  return {
    models: plan.specs,
    settings: plan.settings,
    ...(plan.modelCallSeconds ? { model_call_seconds: plan.modelCallSeconds } : {}),
    ...(plan.cachePath ? { cache: plan.cachePath } : {}),
  };
}

/** The human-readable eval report: one row per family and overall, then feasible rates and usage. */
export function renderEvalReport(report: EvalReport): string {
  const { blocked, feasible, usage, infra_errors, n_total, n_scored, context_overflow } = report.summary;
  const lines = [
    `harness ${report.harness} · model ${report.model} · seed ${report.seed} · repeats ${report.repeats}`,
    "",
  ];
  if (blocked) {
    const header = ["blocked", "n", ...EVAL_BLOCKED.map((metric) => metric.short ?? metric.label)];
    const rows = [
      ...FAMILIES.flatMap((family) => {
        const rates = blocked.by_family[family];
        return rates ? [[family, ...rateCells(rates)]] : [];
      }),
      ["all", ...rateCells(blocked)],
    ];
    lines.push(formatTable(header, rows), "");
  } else lines.push("blocked: no task in the selection", "");
  if (feasible)
    lines.push(
      formatTable(
        ["feasible", "n", ...EVAL_FEASIBLE.map((metric) => metric.short ?? metric.label)],
        [
          [
            "all",
            String(feasible.n),
            ...EVAL_FEASIBLE.map((metric) => fmtRate(storedMetric(feasible, metric.name))),
          ],
        ],
      ),
      "",
    );
  else lines.push("feasible: no task in the selection", "");
  const suites = Object.entries(report.by_suite);
  if (suites.length > 1)
    lines.push(
      formatTable(
        ["suite", ...BY_SUITE.map((name) => metricLabel(name, "short"))],
        suites.map(([suite, r]) => [suite, ...BY_SUITE.map((name) => rateText(r[name]))]),
        { flexColumn: 0 },
      ),
      "",
    );
  const infra = Object.entries(infra_errors)
    .map(([errorClass, count]) => `${count} ${errorClass}`)
    .join(", ");
  lines.push(
    `scored ${n_scored} of ${n_total} episodes` +
      (n_scored < n_total ? ` · infrastructure errors (not scored): ${infra}` : "") +
      (context_overflow > 0 ? ` · ${context_overflow} ended by the context window (scored as failures)` : ""),
  );
  for (const { task_id, repeat, error } of report.infra_error_details)
    lines.push(`infrastructure error: ${task_id} (repeat ${repeat}): ${cutMiddle(error, 600)}`);
  for (const [role, part] of Object.entries(usage.by_role)) {
    if (part.calls + part.cached_calls === 0) continue;
    lines.push(`usage ${role}: ${describeUsage(part)}`);
  }
  lines.push(`usage: ${describeUsage(usage)}`);
  return lines.join("\n");
}

/** "12 calls (3 cached), 1000 input + 200 output tokens (800 from the prompt cache), $0.0123". */
export function describeUsage(usage: RoleUsage): string {
  const cached = usage.cached_calls > 0 ? ` (+${usage.cached_calls} from the request cache, not billed)` : "";
  const promptCache =
    usage.cache_read_tokens + usage.cache_write_tokens > 0
      ? ` (prompt cache: ${usage.cache_read_tokens} read, ${usage.cache_write_tokens} written)`
      : "";
  return `${usage.calls} model calls${cached}, ${usage.input_tokens} input + ${usage.output_tokens} output tokens${promptCache}, ${formatUsd(usage.usd)}`;
}

/** The eval table's columns: every built-in metric of one kind of episode (src/scoring/metrics). */
const EVAL_BLOCKED = builtinMetricsOf("blocked");
const EVAL_FEASIBLE = builtinMetricsOf("feasible");
const BY_SUITE = ["strict_sa", "solve", "false_abstention"] as const;

function rateCells(rates: BlockedRates): string[] {
  return [String(rates.n), ...EVAL_BLOCKED.map((metric) => fmtRate(storedMetric(rates, metric.name)))];
}
