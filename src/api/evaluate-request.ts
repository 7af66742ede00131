/**
 * `hsearch eval` as the library runs it: a HarnessTaskRequest (flags, `--models` file, settings, cache) evaluated
 * into a new evaluation directory, or a stopped one continued. The CLI parses flags, calls these and prints.
 */
import { basename } from "node:path";
import { resolveUserPath } from "../core";
import type { Task } from "../domain";
import { type ImageSource, imageSourceChosen, internetAllowed } from "../envs";
import { createEvaluationDir, type EvaluationDir, openEvaluationDir } from "../eval";
import { loadHarness } from "../harness";
import type { RoleModels } from "../models";
import { createRejectionMemory, type LearntRejection, type RejectionMemory } from "../models";
import { loadStoredEvaluation } from "../report";
import {
  DEFAULT_MAX_INFRA_ERROR_RATE,
  describeInfraGate,
  type EpisodeScore,
  infraErrorGate,
} from "../scoring";
import type { RunStore } from "../store";
import type { EvalOutcome } from "./eval-outcome";
import { evaluateInDir } from "./evaluate-in-dir";
import {
  createPlannedModels,
  type HarnessTaskRequest,
  type ModelPlan,
  modelConfigOf,
  planModels,
  type RequestContext,
  sayRejection,
} from "./harness-task";
import { locateRun } from "./locate-run";
import { evaluationLocation } from "./probe";
import { recordedTasks, recordedTasksAgain, selectTasks } from "./select-tasks";

export interface EvaluateRequest extends HarnessTaskRequest {
  /** Episodes per task. */
  repeats: number;
  /** Default DEFAULT_MAX_INFRA_ERROR_RATE. */
  maxInfraErrorRate?: number;
  /** The evaluation directory; default `runs/<id>` under the working directory. */
  out?: string;
  /**
   * Where a terminal task that names a prebuilt image gets it (`--image-source`); default `HSEARCH_IMAGE_SOURCE`,
   * else `auto`. This evaluation's alone: another in the same process may choose differently.
   */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
}

export interface EvaluateContext extends RequestContext {
  /** What a person would want to read: where the episodes are kept, what a resume reads back. */
  onMessage?: (text: string) => void;
  onProgress?: (done: number, total: number) => void;
}

/** An evaluation's outcome, and why it counts as failed when too many episodes met an infrastructure error. */
export interface EvaluateRequestOutcome extends EvalOutcome {
  /** Null when the share of infrastructure errors is within the limit. */
  infraGate: string | null;
}

/**
 * Evaluates a harness, keeping every episode in a new evaluation directory. Everything that can be bad input (the
 * harness, the tasks, the models) is checked before the directory is made, so a refused evaluation leaves none.
 */
export async function evaluateRequest(
  request: EvaluateRequest,
  context: EvaluateContext,
): Promise<EvaluateRequestOutcome> {
  const harnessDir = resolveUserPath(request.harness, context.cwd);
  const harness = loadHarness(harnessDir);
  const selected = await selectTasks(request, context);
  const plan = planModels(request, context);
  const rejections = storedRejections(context);
  const models = createPlannedModels(plan, context, rejections.memory);
  const maxInfraErrorRate = request.maxInfraErrorRate ?? DEFAULT_MAX_INFRA_ERROR_RATE;
  const imageSource = request.imageSource ?? imageSourceChosen(context.env);
  const allowInternet = request.allowInternet ?? internetAllowed(context.env);
  const { root, id } = evaluationLocation(request.out, { harnessDir, tasks: request.tasks }, context.cwd);
  const evaluation = await createEvaluationDir({
    root,
    id,
    kind: "eval",
    name: `eval ${basename(harnessDir)}`,
    harness: { harness, dir: harnessDir },
    config: {
      tasks: recordedTasks(request, selected, context),
      ...modelConfigOf(plan),
      seed: request.seed,
      concurrency: request.concurrency,
      repeats: request.repeats,
      max_infra_error_rate: maxInfraErrorRate,
    },
  });
  rejections.keepIn(evaluation.store);
  return evaluateWith(
    evaluation,
    selected.tasks,
    models,
    { maxInfraErrorRate, imageSource, allowInternet },
    context,
  );
}

/**
 * Continues an evaluation that stopped (Ctrl-C, SIGKILL, a failure): the same harness (from its commit), tasks,
 * models and seeds; the stored episodes are reused and only the others run, so it ends as an uninterrupted one.
 * A finished evaluation is read back as it is.
 */
export async function resumeEvaluationRequest(
  target: string,
  options: {
    concurrency?: number;
    maxInfraErrorRate?: number;
    imageSource?: ImageSource;
    allowInternet?: boolean;
  },
  context: EvaluateContext,
): Promise<EvaluateRequestOutcome> {
  const imageSource = options.imageSource ?? imageSourceChosen(context.env);
  const allowInternet = options.allowInternet ?? internetAllowed(context.env);
  const evaluation = await openEvaluationDir(locateRun(target, context.cwd), "eval");
  const { store, run, config } = evaluation;
  const maxInfraErrorRate = options.maxInfraErrorRate ?? config.max_infra_error_rate;
  if (run.state === "finished") {
    try {
      context.onMessage?.(`${run.id} already finished at ${run.ended_at}; nothing to resume`);
      const stored = loadStoredEvaluation(store);
      return withGate({
        report: stored.report,
        scores: stored.rollouts.map((rollout) => rollout.scores as EpisodeScore),
        maxInfraErrorRate,
        dir: store.paths.dir,
      });
    } finally {
      store.close();
    }
  }
  let tasks: Task[];
  let models: RoleModels;
  try {
    tasks = await recordedTasksAgain(config.tasks, context, store, (text) => context.onMessage?.(text));
    const plan: ModelPlan = {
      specs: config.models,
      settings: config.settings,
      ...(config.model_call_seconds ? { modelCallSeconds: config.model_call_seconds } : {}),
      ...(config.cache ? { cachePath: config.cache } : {}),
      concurrency: options.concurrency ?? config.concurrency,
    };
    // What earlier sessions' providers rejected is left out from the first call.
    const rejections = storedRejections(context, store.rejectedParameters());
    rejections.keepIn(store);
    models = createPlannedModels(plan, context, rejections.memory);
  } catch (error) {
    store.close();
    throw error;
  }
  const concurrency = options.concurrency === undefined ? {} : { concurrency: options.concurrency };
  return evaluateWith(
    evaluation,
    tasks,
    models,
    { ...concurrency, maxInfraErrorRate, imageSource, allowInternet },
    context,
  );
}

async function evaluateWith(
  evaluation: EvaluationDir<"eval">,
  tasks: readonly Task[],
  models: RoleModels,
  options: {
    maxInfraErrorRate: number;
    concurrency?: number;
    imageSource: ImageSource;
    allowInternet: boolean;
  },
  context: EvaluateContext,
): Promise<EvaluateRequestOutcome> {
  return withGate(
    await evaluateInDir(evaluation, tasks, models, {
      ...options,
      ...(context.onMessage ? { onMessage: context.onMessage } : {}),
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
    }),
  );
}

function withGate(outcome: EvalOutcome): EvaluateRequestOutcome {
  const gate = infraErrorGate(outcome.scores, outcome.maxInfraErrorRate);
  return { ...outcome, infraGate: gate ? describeInfraGate(gate) : null };
}

/**
 * The rejection memory of a request that keeps its episodes in a directory (eval): it starts from what the
 * directory's earlier sessions learnt (`known`, a resume), says each new rejection once, and records it in the
 * directory's store once `keepIn` names it (the models are made before the directory, so bad input leaves none).
 */
function storedRejections(
  context: RequestContext,
  known: readonly LearntRejection[] = [],
): { memory: RejectionMemory; keepIn(store: RunStore): void } {
  let kept: RunStore | undefined;
  const say = sayRejection(context);
  return {
    memory: createRejectionMemory({
      known,
      onLearn: (rejection) => {
        say(rejection);
        kept?.recordRejectedParameter(rejection);
      },
    }),
    keepIn: (store) => {
      kept = store;
    },
  };
}
