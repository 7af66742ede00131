import type { Argv } from "yargs";
import { resolveUserPath } from "../core/paths";
import { FAMILIES } from "../domain/task";
import { cutMiddle } from "../envs/terminal/output-cut";
import { evaluateJobs, planRollouts } from "../eval/evaluate";
import { loadHarness } from "../harness/load";
import type { ModelRole } from "../models/settings";
import { addRoleUsage, formatUsd, type RoleUsage } from "../models/usage";
import { type Rate, wilson } from "../report/compare";
import {
  type BlockedRates,
  DEFAULT_MAX_INFRA_ERROR_RATE,
  describeInfraGate,
  type EpisodeScore,
  type EvalSummary,
  infraErrorGate,
  summarize,
  type TaskRow,
  taskRows,
} from "../scoring";
import { rateText } from "./compare-text";
import type { CliIO } from "./io";
import { createProgress } from "./progress";
import type { SetExitCode } from "./shared";
import { commandModels, type HarnessTaskArgs, harnessTaskOptions, judgeOf, selectTasks } from "./shared";
import { fmtRate, formatTable } from "./table";
import { usageError } from "./usage-error";

export interface EvalReport {
  harness: string;
  model: string;
  seed: number;
  repeats: number;
  summary: EvalSummary & {
    /** Billed calls, tokens and cost of every role together; cached calls apart; usd null when unknown. */
    usage: RoleUsage & { by_role: Record<ModelRole, RoleUsage> };
  };
  tasks: TaskRow[];
  /** Per suite: strict SA on blocked episodes, solve and false abstention on feasible ones, each with k/n and a 95%
   * Wilson interval (a mixed selection otherwise shows only pooled figures). */
  by_suite: Record<string, { strict_sa: Rate; solve: Rate; false_abstention: Rate }>;
  /** Each infrastructure error with its message (a task whose setup failed: the setup's output). */
  infra_error_details: Array<{ task_id: string; repeat: number; error: string }>;
}

export function register(parser: Argv, io: CliIO, setExitCode: SetExitCode): void {
  parser.command(
    "eval",
    "Evaluate one harness on a split or a task directory; prints every metric of docs/DESIGN.md §6",
    (yargs) =>
      harnessTaskOptions(yargs, "evaluate")
        .option("judge", {
          type: "string",
          describe: "rules or llm:<model>; default: the --models file's judge spec, else rules",
        })
        .option("repeats", { type: "number", default: 1 })
        .option("max-infra-error-rate", {
          type: "number",
          default: DEFAULT_MAX_INFRA_ERROR_RATE,
          describe: "exit 1 when more than this fraction of episodes meet an infrastructure error",
        })
        .check((argv) => {
          const rate = argv["max-infra-error-rate"];
          if (!(rate >= 0 && rate <= 1)) throw usageError("--max-infra-error-rate must be between 0 and 1");
          if (argv.split === undefined && argv.tasks === undefined)
            throw usageError("give --split or --tasks");
          for (const name of ["repeats", "concurrency"] as const)
            if (!Number.isInteger(argv[name]) || argv[name] < 1)
              throw usageError(`--${name} must be a whole number ≥ 1`);
          if (!Number.isInteger(argv.seed) || argv.seed < 0)
            throw usageError("--seed must be a whole number ≥ 0");
          return true;
        }),
    async (argv) => {
      const { report, scores } = await runEval(
        {
          harness: argv.harness,
          split: argv.split,
          suite: argv.suite,
          kind: argv.kind,
          family: argv.family,
          tasks: argv.tasks,
          model: argv.model,
          judge: argv.judge,
          customer: argv.customer,
          seed: argv.seed,
          repeats: argv.repeats,
          concurrency: argv.concurrency,
          models: argv.models,
          cache: argv.cache,
          set: argv.set,
          modelCallSeconds: argv.modelCallSeconds,
          quiet: argv.json,
        },
        io,
      );
      io.out(argv.json ? JSON.stringify(report, null, 2) : renderEvalReport(report));
      const gate = infraErrorGate(scores, argv["max-infra-error-rate"]);
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
  quiet?: boolean;
}

/** The report, and the episode scores behind it (for the infrastructure-error gate). */
export async function runEval(
  options: EvalOptions,
  io: CliIO,
): Promise<{ report: EvalReport; scores: EpisodeScore[] }> {
  const harness = loadHarness(resolveUserPath(options.harness, io.cwd));
  const tasks = selectTasks(options, io);
  const models = commandModels(options, io);
  const model = models.agent;
  const judge = judgeOf(models);
  const customerModel = models.customer;
  const jobs = planRollouts(tasks, options.repeats, options.seed);
  const progress = createProgress(io, "eval", { quiet: options.quiet });
  let done = 0;
  const outcomes = await evaluateJobs({
    harness,
    jobs,
    model,
    judge,
    customerModel,
    concurrency: options.concurrency,
    onRollout: () => {
      done++;
      progress.update(done, jobs.length, "rollouts");
    },
  });
  progress.done();
  const scores = outcomes.map((outcome) => outcome.score);
  const byRole = models.usage();
  const report: EvalReport = {
    harness: harness.label,
    model: model.id,
    seed: options.seed,
    repeats: options.repeats,
    summary: {
      ...summarize(scores),
      usage: { ...addRoleUsage(Object.values(byRole)), by_role: byRole },
    },
    tasks: taskRows(scores),
    by_suite: suiteRates(scores, new Map(tasks.map((task) => [task.id, task.suite]))),
    infra_error_details: scores.flatMap((score) =>
      score.kind === "infra_error"
        ? [{ task_id: score.task_id, repeat: score.repeat, error: score.error }]
        : [],
    ),
  };
  return { report, scores };
}

/** The human-readable eval report: one row per family and overall, then feasible rates and usage. */
export function renderEvalReport(report: EvalReport): string {
  const { blocked, feasible, usage, infra_errors, n_total, n_scored, context_overflow } = report.summary;
  const lines = [
    `harness ${report.harness} · model ${report.model} · seed ${report.seed} · repeats ${report.repeats}`,
    "",
  ];
  if (blocked) {
    const header = [
      "blocked",
      "n",
      "M0",
      "M1",
      "M2",
      "M3",
      "strict",
      "relaxed",
      "naiveM2",
      "AbsRec@1",
      "AbsRec@3",
      "SPL",
      "post-hoc",
    ];
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
        ["feasible", "n", "solve", "false abstention"],
        [["all", String(feasible.n), fmtRate(feasible.solve), fmtRate(feasible.false_abstention)]],
      ),
      "",
    );
  else lines.push("feasible: no task in the selection", "");
  const suites = Object.entries(report.by_suite);
  if (suites.length > 1)
    lines.push(
      formatTable(
        ["suite", "strict SA", "solve", "false abstention"],
        suites.map(([suite, r]) => [
          suite,
          rateText(r.strict_sa),
          rateText(r.solve),
          rateText(r.false_abstention),
        ]),
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

/** Rates per suite with k/n and intervals, from the scored episodes (infrastructure errors left out). */
function suiteRates(
  scores: readonly EpisodeScore[],
  suiteOf: ReadonlyMap<string, string>,
): EvalReport["by_suite"] {
  const out: EvalReport["by_suite"] = {};
  const suites = [...new Set(scores.map((s) => suiteOf.get(s.task_id) ?? "unknown"))].sort();
  for (const suite of suites) {
    const mine = scores.filter((s) => (suiteOf.get(s.task_id) ?? "unknown") === suite);
    const blocked = mine.flatMap((s) => (s.kind === "blocked" ? [s] : []));
    const feasible = mine.flatMap((s) => (s.kind === "feasible" ? [s] : []));
    out[suite] = {
      strict_sa: wilson(blocked.filter((s) => s.strict_sa).length, blocked.length),
      solve: wilson(feasible.filter((s) => s.solve).length, feasible.length),
      false_abstention: wilson(feasible.filter((s) => s.false_abstention).length, feasible.length),
    };
  }
  return out;
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

function rateCells(rates: BlockedRates): string[] {
  return [
    String(rates.n),
    fmtRate(rates.m0),
    fmtRate(rates.m1),
    fmtRate(rates.m2),
    fmtRate(rates.m3),
    fmtRate(rates.strict_sa),
    fmtRate(rates.relaxed_sa),
    fmtRate(rates.naive_m2),
    fmtRate(rates.absrec["1"]),
    fmtRate(rates.absrec["3"]),
    fmtRate(rates.spl),
    String(rates.post_hoc),
  ];
}
