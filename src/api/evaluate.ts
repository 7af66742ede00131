import { randomBytes } from "node:crypto";
import { basename, resolve } from "node:path";
import { assertOutputApart, newRunId, resolveUserPath } from "../core";
import type { Task } from "../domain";
import { type ImageSource, imageSourceChosen, internetAllowed } from "../envs";
import { createEvaluationDir, openEvaluationDir } from "../eval";
import { createRejectionMemory, createRoleModels, describeRejection, loadPriceTable } from "../models";
import { DEFAULT_MAX_INFRA_ERROR_RATE } from "../scoring";
import { offlineProviders } from "../sim";
import type { RunStore } from "../store";
import type { EvalOutcome } from "./eval-outcome";
import { evaluateInDir } from "./evaluate-in-dir";
import { type EvaluateModels, type HarnessTaskOptions, harnessTaskSetup } from "./harness-task-setup";
import { locateRun } from "./locate-run";
import { recordedTasks, recordedTasksAgain, type TaskSelection } from "./select-tasks";

export interface EvaluateOptions extends HarnessTaskOptions {
  /** Episodes per task; default 1. */
  repeats?: number;
  /** Above this share of infrastructure errors the evaluation is `failed`; default 0.2. */
  maxInfraErrorRate?: number;
}

/**
 * One harness on a task selection (the library's `hsearch eval`): every episode kept in a new evaluation directory,
 * which `openRun` reads and `hsearch eval --resume` continues. Bad input throws before the directory is made.
 */
export async function evaluate(
  harness: string,
  tasks: TaskSelection,
  models: EvaluateModels | string,
  options: EvaluateOptions = {},
): Promise<EvalOutcome> {
  // What a provider rejects is said and kept in the directory (for `eval --resume`) once the directory exists.
  let kept: RunStore | undefined;
  const {
    cwd,
    say,
    harnessDir,
    harness: loaded,
    selected,
    specs,
    concurrency,
    models: roleModels,
  } = await harnessTaskSetup(harness, tasks, models, options, (rejection) =>
    kept?.recordRejectedParameter(rejection),
  );
  const seed = options.seed ?? 1;
  const maxInfraErrorRate = options.maxInfraErrorRate ?? DEFAULT_MAX_INFRA_ERROR_RATE;
  // A bad HSEARCH_IMAGE_SOURCE or HSEARCH_ALLOW_INTERNET fails before the evaluation directory is made.
  const choices = environmentDefaults(options.env ?? process.env);
  const out = options.out === undefined ? undefined : resolve(cwd, options.out);
  if (out)
    assertOutputApart({ path: out, name: "out" }, [
      { path: harnessDir, name: "the harness" },
      ...(tasks.tasks === undefined ? [] : [{ path: resolveUserPath(tasks.tasks, cwd), name: "the tasks" }]),
    ]);
  const evaluation = await createEvaluationDir({
    root: out ? resolve(out, "..") : resolve(cwd, "runs"),
    id: out
      ? basename(out)
      : newRunId(`eval-${basename(harnessDir)}`, new Date(), randomBytes(8).toString("hex")),
    kind: "eval",
    name: `eval ${basename(harnessDir)}`,
    harness: { harness: loaded, dir: harnessDir },
    config: {
      tasks: recordedTasks(tasks, selected, { cwd }),
      models: specs,
      settings: {},
      seed,
      concurrency,
      repeats: options.repeats ?? 1,
      max_infra_error_rate: maxInfraErrorRate,
    },
  });
  kept = evaluation.store;
  return evaluateInDir(evaluation, selected.tasks, roleModels, {
    maxInfraErrorRate,
    ...choices,
    onMessage: say,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}

/**
 * Continues an evaluation that stopped (the library's `hsearch eval --resume`): the directory fixes the harness,
 * tasks, models and seeds; its stored episodes are reused and only the others run, so it ends as an uninterrupted
 * one would. A finished evaluation is read back as it is.
 */
export async function resumeEvaluation(
  dir: string,
  options: Pick<EvaluateOptions, "cwd" | "env" | "concurrency" | "onMessage" | "onProgress"> = {},
): Promise<EvalOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const say = options.onMessage ?? (() => {});
  const evaluation = await openEvaluationDir(locateRun(dir, cwd), "eval");
  const { store, config } = evaluation;
  let tasks: Task[];
  let roleModels: ReturnType<typeof createRoleModels>;
  try {
    tasks = await recordedTasksAgain(config.tasks, { cwd }, store, say);
    roleModels = createRoleModels(config.models, {
      env: options.env ?? process.env,
      concurrency: options.concurrency ?? config.concurrency,
      prices: loadPriceTable(),
      settings: config.settings,
      ...(config.cache ? { cachePath: config.cache } : {}),
      ...(config.model_call_seconds ? { timeoutMs: config.model_call_seconds * 1000 } : {}),
      extraProviders: offlineProviders,
      warn: (message) => say(`warning: ${message}`),
      rejections: createRejectionMemory({
        known: store.rejectedParameters(),
        onLearn: (rejection) => {
          say(describeRejection(rejection, "learnt"));
          store.recordRejectedParameter(rejection);
        },
      }),
    });
  } catch (error) {
    store.close();
    throw error;
  }
  return evaluateInDir(evaluation, tasks, roleModels, {
    maxInfraErrorRate: config.max_infra_error_rate,
    ...environmentDefaults(options.env ?? process.env),
    onMessage: say,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}

/** The user's defaults for how episodes' environments are made, read once where the call starts (never set). */
function environmentDefaults(env: NodeJS.ProcessEnv): { imageSource: ImageSource; allowInternet: boolean } {
  return { imageSource: imageSourceChosen(env), allowInternet: internetAllowed(env) };
}
