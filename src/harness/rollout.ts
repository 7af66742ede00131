import { type AgentTask, type Task, toAgentTask } from "../domain";
import {
  createTaskEnvironment,
  type Environment,
  type EnvironmentOptions,
  environmentChoicesOf,
  type ImageSource,
  suitePolicy,
  suiteRuntime,
  TaskSetupError,
  unmetInternetNeed,
  type VerifierRun,
  verifyTaskWithReport,
} from "../envs";
import type { InfraErrorClass } from "../models";
import { costOf, type PriceTable } from "../models";
import type { ChatModel, ChatRequest } from "../models/types";
import { type Customer, LlmCustomer, ScriptedCustomer } from "./customer";
import { Episode, type EpisodeInput, type EpisodeResult } from "./episode";
import type { Harness } from "./load";
import type { Trajectory } from "./trajectory";

export interface RolloutInput {
  harness: Harness;
  task: Task;
  model: ChatModel;
  seed: number;
  repeat: number;
  /** Retail: an LLM plays the customer instead of the scripted one. */
  customerModel?: ChatModel;
  prices?: PriceTable;
  onRequest?: (request: ChatRequest) => void;
  /** The belief probe's read-only episode: write tools refused, and the terminal workspace mounted read-only. */
  readOnly?: boolean;
  /** Run the native verifier after the episode (default true). */
  verify?: boolean;
  /** Where a terminal task that names a prebuilt image gets it (default `auto`): the caller's choice, as data. */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /** How the task's environment is made (tests and probes may substitute one). */
  createEnvironment?: (
    task: Task,
    options: EnvironmentOptions & { readOnly: boolean },
  ) => Promise<Environment>;
}

/** A finished episode whose environment is still open, for a continuation on the same state (the probes). */
export interface OpenRollout {
  task: Task;
  env: Environment;
  /** The finished episode as the trajectory records it. */
  episode: EpisodeResult;
  /** The same episode, to continue (`continueWith`) or ask (`ask`) on the same conversation and environment. */
  engine: Episode;
  /** `reward` is null when the verifier was not run, and always for infrastructure errors. */
  trajectory: Trajectory;
}

const UNFINISHED = new Set(["max_steps", "model_error", "context_overflow", "infra_error"]);

/**
 * One (harness, task, seed, repeat) episode → a trajectory: set up the task's environment, run the agent loop on
 * the agent's view of the task, then run the native verifier.
 */
export async function runRollout(input: RolloutInput): Promise<Trajectory> {
  if (input.model.followsReference && !hasReference(input.task))
    return infraFailure(input, `${NO_REFERENCE}: the oracle has nothing to follow here`, "no_reference");
  try {
    return await withOpenRollout(input, async ({ trajectory }) => trajectory);
  } catch (error) {
    if (error instanceof TaskSetupError) {
      const unmet = await unmetInternetNeed(input.task, [error.message], input.allowInternet ?? false);
      if (unmet) return infraFailure(input, `${TASK_SETUP_FAILED}: ${unmet}`, "no_network");
      return setupFailureTrajectory(input, `${TASK_SETUP_FAILED}: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The task's environment could not be set up: that task's infrastructure error (not scored, counted), with the
 * setup's output, so that one broken task does not abort an evaluation of the others.
 */
export const TASK_SETUP_FAILED = "task setup failed";

/** A task that ships no reference solution (Harbor's is optional): the oracle's unsupported outcome, counted apart. */
export const NO_REFERENCE = "no reference solution";

function hasReference(task: Task): boolean {
  return suiteRuntime(task.suite).hasReference(task);
}

/** The trajectory of an episode whose task could not be set up: no step, the setup's output as the error (the probes keep one too). */
export function setupFailureTrajectory(input: RolloutPlace, error: string): Trajectory {
  return infraFailure(input, error, "task_setup");
}

type RolloutPlace = Pick<RolloutInput, "harness" | "task" | "model" | "seed" | "repeat">;

/** A rollout that could not run at all: no steps, no reward, counted by its class. */
function infraFailure(input: RolloutPlace, error: string, errorClass: InfraErrorClass): Trajectory {
  const { task } = input;
  return {
    task_id: task.id,
    suite: task.suite,
    kind: task.kind,
    ...(task.family ? { family: task.family } : {}),
    model: input.model.id,
    harness: input.harness.hash,
    seed: input.seed,
    repeat: input.repeat,
    steps: 0,
    events: [],
    end: {
      reason: "infra_error",
      step: 0,
      error,
      error_class: errorClass,
    },
    reward: null,
    usage: { input_tokens: 0, output_tokens: 0, usd: 0, model_calls: 0 },
  };
}

/** The same, handing the episode and its still-open environment to `use`; the environment is closed afterwards. */
export async function withOpenRollout<T>(
  input: RolloutInput,
  use: (rollout: OpenRollout) => Promise<T>,
): Promise<T> {
  const { harness, task, seed, repeat } = input;
  const readOnly = input.readOnly ?? false;
  // Every model call of the episode, the agent's and the customer's, and how many the request cache answered.
  const tally = { calls: 0, cached: 0 };
  const model = tallied(input.model, tally);
  const customerModel = input.customerModel && tallied(input.customerModel, tally);
  const env = await (input.createEnvironment ?? createTaskEnvironment)(task, {
    readOnly,
    ...environmentChoicesOf(input),
  });
  try {
    const engine = new Episode({
      harness,
      task: toAgentTask(task),
      env,
      model,
      seed,
      repeat,
      policy: suitePolicy(task.suite),
      customer: customerFor(task, { ...input, customerModel }),
      readOnly,
      ...(input.onRequest ? { onRequest: input.onRequest } : {}),
    });
    const episode = await engine.run();
    const infra = episode.end.reason === "infra_error";
    const verified: VerifierRun | null =
      (input.verify ?? true) && !infra
        ? await verifyTaskWithReport(task, env, {
            agentMessages: episode.agentMessages,
            completed: !UNFINISHED.has(episode.end.reason),
          })
        : null;
    const image = env.episodeImage?.();
    const trajectory = {
      ...episodeTrajectory({ ...input, model }, episode, tally, verified),
      ...(image ? { image } : {}),
    };
    return await use({
      task,
      env,
      episode,
      engine,
      trajectory: await withUnmetInternet(task, trajectory, input.allowInternet ?? false),
    });
  } finally {
    await env.close();
  }
}

/**
 * A task's episode in an environment made by the caller, without a verifier (`hsearch agent`: the local shell of
 * a task's container, whose verifier the benchmark's runner runs afterwards): the same engine and trajectory as a
 * rollout. The caller closes `env`.
 */
export async function runAgentEpisode(
  input: Pick<EpisodeInput, "harness" | "task" | "env" | "model" | "seed" | "repeat" | "onRequest"> & {
    prices?: PriceTable;
  },
): Promise<{ episode: EpisodeResult; trajectory: Trajectory }> {
  const tally = { calls: 0, cached: 0 };
  const model = tallied(input.model, tally);
  const episode = await new Episode({
    harness: input.harness,
    task: input.task,
    env: input.env,
    model,
    seed: input.seed,
    repeat: input.repeat,
    policy: suitePolicy(input.task.suite),
    ...(input.onRequest ? { onRequest: input.onRequest } : {}),
  }).run();
  return { episode, trajectory: episodeTrajectory({ ...input, model }, episode, tally, null) };
}

/** The trajectory of a finished episode: its place, events, end, reward (null unverified) and usage. */
function episodeTrajectory(
  input: {
    harness: Harness;
    task: AgentTask;
    model: ChatModel;
    seed: number;
    repeat: number;
    prices?: PriceTable;
  },
  episode: EpisodeResult,
  tally: { calls: number; cached: number },
  verified: VerifierRun | null,
): Trajectory {
  const { task, model } = input;
  const usd = input.prices ? costOf(input.prices, model.id, episode.billedUsage).usd : 0;
  return {
    task_id: task.id,
    suite: task.suite,
    kind: task.kind,
    ...(task.family ? { family: task.family } : {}),
    model: model.id,
    harness: input.harness.hash,
    seed: input.seed,
    repeat: input.repeat,
    steps: episode.steps,
    events: episode.events,
    end: episode.end,
    reward: verified?.reward ?? null,
    ...(verified?.report ? { verifier: verified.report } : {}),
    usage: { ...episode.usage, usd },
    ...(tally.calls > 0 && tally.cached === tally.calls ? { from_cache: true as const } : {}),
  };
}

/**
 * A failed episode of a task that asked for internet the user did not grant, whose verifier or commands show an
 * unreachable host: that task's infrastructure error (`no_network`), not the agent's failure; the episode is kept.
 */
async function withUnmetInternet(task: Task, trajectory: Trajectory, allowed: boolean): Promise<Trajectory> {
  if (trajectory.reward !== 0) return trajectory;
  const outputs = [
    trajectory.verifier?.output ?? "",
    ...trajectory.events.flatMap((event) => (event.type === "observation" ? [event.text] : [])),
  ];
  const unmet = await unmetInternetNeed(task, outputs, allowed);
  if (!unmet) return trajectory;
  return {
    ...trajectory,
    end: { reason: "infra_error", step: trajectory.end.step, error: unmet, error_class: "no_network" },
    reward: null,
  };
}

/** The model, counting its calls and those the request cache answered (a response marked `cached`) into `tally`. */
function tallied(model: ChatModel, tally: { calls: number; cached: number }): ChatModel {
  return {
    id: model.id,
    provider: model.provider,
    ...(model.followsReference ? { followsReference: true } : {}),
    generate: async (request, options) => {
      tally.calls++;
      const response = await model.generate(request, options);
      if (response.cached) tally.cached++;
      return response;
    },
  };
}

function customerFor(task: Task, input: RolloutInput): Customer | undefined {
  if (!suiteRuntime(task.suite).hasCustomer) return undefined;
  const scenario = task.user ?? { reason_for_call: task.instruction, known_info: "" };
  if (input.customerModel) return new LlmCustomer(input.customerModel, scenario, input.seed, input.repeat);
  return new ScriptedCustomer(scenario);
}
