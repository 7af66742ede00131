import {
  ALLOW_INTERNET_VARIABLE,
  DEFAULT_MAX_INFRA_ERROR_RATE,
  type EvaluateRequest,
  evaluateRequest,
  IMAGE_SOURCE_VARIABLE,
  IMAGE_SOURCES,
  resumeEvaluationRequest,
} from "../api";
import { DEFAULT_CONCURRENCY } from "../core";
import { defineCommand } from "./command-list";
import { harnessTaskOptions, requestContext } from "./shared";
import { renderEvalReport } from "./text/eval-text";
import { createProgress } from "./text/progress";
import { checkWholeNumber, usageError } from "./usage-error";

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

export const register = defineCommand("eval", {
  options: (yargs) =>
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
          if (value !== undefined) checkWholeNumber(name, value, 1);
        }
        if (argv.seed !== undefined) checkWholeNumber("seed", argv.seed, 0);
        return true;
      }),
  run: async (argv, io, setExitCode) => {
    const options: EvaluateRequest = {
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
      ...(argv.imageSource ? { imageSource: argv.imageSource } : {}),
      ...(argv.allowInternet ? { allowInternet: true } : {}),
    };
    const progress = createProgress(io, "eval", { quiet: argv.json });
    const context = {
      ...requestContext(io),
      onMessage: (text: string) => io.err(`hsearch eval: ${text}`),
      onProgress: (done: number, total: number) => progress.update(done, total, "rollouts"),
    };
    const { report, infraGate } = await (argv.resume === undefined
      ? evaluateRequest(options, context)
      : resumeEvaluationRequest(
          argv.resume,
          {
            ...(argv.concurrency !== undefined ? { concurrency: argv.concurrency } : {}),
            ...(argv.maxInfraErrorRate !== undefined ? { maxInfraErrorRate: argv.maxInfraErrorRate } : {}),
            ...(argv.imageSource ? { imageSource: argv.imageSource } : {}),
            ...(argv.allowInternet ? { allowInternet: true } : {}),
          },
          context,
        )
    ).finally(() => {
      progress.done();
    });
    io.out(argv.json ? JSON.stringify(report, null, 2) : renderEvalReport(report));
    if (infraGate) {
      io.err(`hsearch eval: ${infraGate}`);
      setExitCode(1);
    }
  },
});
