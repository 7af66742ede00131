/**
 * `hsearch probe beliefs|challenge` as the library runs them: a HarnessTaskRequest (flags, `--models` file,
 * settings, cache) probed into a new directory. The CLI parses flags, calls these and prints.
 */
import { resolveUserPath } from "../core";
import { imageSourceChosen, internetAllowed } from "../envs";
import { loadHarness } from "../harness";
import type { EvaluateContext } from "./evaluate-request";
import { createPlannedModels, type HarnessTaskRequest, modelConfigOf, planModels } from "./harness-task";
import {
  type BeliefsReport,
  beliefsInDir,
  type ChallengeReport,
  challengeInDir,
  type ProbeSetup,
} from "./probe";
import { recordedTasks, selectTasks } from "./select-tasks";

export interface ProbeRequest extends HarnessTaskRequest {
  /** The probe's directory; default runs/<beliefs|challenge>-<harness>-… under the working directory. */
  out?: string;
}

/** The beliefs probe; `compare` a second harness (paired differences over source pairs). */
export async function probeBeliefsRequest(
  request: ProbeRequest & { compare?: string; resamples: number },
  context: EvaluateContext,
): Promise<BeliefsReport & { dir: string }> {
  return beliefsInDir(await setup(request, context), {
    ...(request.compare !== undefined ? { compare: request.compare } : {}),
    resamples: request.resamples,
  });
}

/** The challenge probe: `runs` independent runs per task. */
export async function probeChallengeRequest(
  request: ProbeRequest & { runs: number },
  context: EvaluateContext,
): Promise<ChallengeReport & { dir: string }> {
  return challengeInDir(await setup(request, context), { runs: request.runs });
}

/** Everything that can be bad input, checked before the probe's directory is made. */
async function setup(request: ProbeRequest, context: EvaluateContext): Promise<ProbeSetup> {
  const harnessDir = resolveUserPath(request.harness, context.cwd);
  const harness = loadHarness(harnessDir);
  const selected = await selectTasks(request, context);
  const plan = planModels(request, context);
  return {
    harness,
    harnessDir,
    ...(request.tasks !== undefined ? { tasksDir: request.tasks } : {}),
    tasks: selected.tasks,
    recorded: { tasks: recordedTasks(request, selected, context), ...modelConfigOf(plan) },
    models: createPlannedModels(plan, context),
    seed: request.seed,
    concurrency: request.concurrency,
    imageSource: imageSourceChosen(context.env),
    allowInternet: internetAllowed(context.env),
    ...(request.out !== undefined ? { out: request.out } : {}),
    cwd: context.cwd,
    ...(context.onMessage ? { onMessage: context.onMessage } : {}),
    ...(context.onProgress ? { onProgress: context.onProgress } : {}),
  };
}
