import { HsearchError } from "../core/errors";
import { createTaskEnvironment, suitePolicy, verifyTask } from "../envs/suite-env";
import type { Environment } from "../envs/types";
import { type EpisodeResult, runEpisode } from "../harness/agent-loop";
import { type Customer, LlmCustomer, ScriptedCustomer } from "../harness/customer";
import type { Harness } from "../harness/load";
import type { Trajectory } from "../harness/trajectory";
import type { ChatModel, ChatRequest } from "../models/types";
import { type Task, type TerminalEnvSpec, toAgentTask } from "../tasks/types";

/**
 * A rollout whose environment stays open after the episode, so a probe can continue the conversation on the
 * same state (the belief turn, the challenge). It mirrors `runRollout` (src/harness/rollout.ts) but hands the
 * episode, its environment and its last request to `use`, and closes the environment afterwards whatever happens.
 */
export interface OpenRolloutInput {
  harness: Harness;
  task: Task;
  model: ChatModel;
  seed: number;
  repeat: number;
  /** The belief probe's read-only episode: every write tool is refused. */
  readOnly?: boolean;
  /** Run the native verifier after the episode (the challenge probe scores the pre-challenge trajectory). */
  verify?: boolean;
  customerModel?: ChatModel;
  onRequest?: (request: ChatRequest) => void;
  /**
   * How the task's environment is made; default `probeEnvironment`. The belief probe's read-only episode is
   * enforced by the agent loop (every write tool refused) and, where the suite can, by the environment itself.
   */
  createEnvironment?: (task: Task, options: { readOnly: boolean }) => Promise<Environment>;
}

export interface OpenRollout {
  task: Task;
  env: Environment;
  episode: EpisodeResult;
  /**
   * The episode's last request as sent: a continuation takes the model settings and the simulator context from it
   * (real providers ignore the latter).
   */
  lastRequest: ChatRequest;
  /** The pre-continuation trajectory; `reward` is null unless `verify` was set (and always for infra errors). */
  trajectory: Trajectory;
}

const UNFINISHED = new Set(["max_steps", "model_error", "infra_error"]);

export async function withOpenRollout<T>(
  input: OpenRolloutInput,
  use: (rollout: OpenRollout) => Promise<T>,
): Promise<T> {
  const { harness, task, model, seed, repeat } = input;
  const create = input.createEnvironment ?? probeEnvironment;
  const env = await create(task, { readOnly: input.readOnly ?? false });
  try {
    let lastRequest: ChatRequest | undefined;
    const episode = await runEpisode({
      harness,
      task: toAgentTask(task),
      env,
      model,
      seed,
      repeat,
      policy: suitePolicy(task.suite),
      customer: customerFor(task, input),
      readOnly: input.readOnly,
      onRequest: (request) => {
        lastRequest = request;
        input.onRequest?.(request);
      },
    });
    if (lastRequest === undefined)
      throw new HsearchError("internal", `the episode of ${task.id} made no model request`);
    const infra = episode.end.reason === "infra_error";
    const reward =
      input.verify && !infra
        ? await verifyTask(task, env, {
            agentMessages: episode.agentMessages,
            completed: !UNFINISHED.has(episode.end.reason),
          })
        : null;
    const trajectory: Trajectory = {
      task_id: task.id,
      suite: task.suite,
      kind: task.kind,
      ...(task.family ? { family: task.family } : {}),
      model: model.id,
      harness: harness.hash,
      seed,
      repeat,
      steps: episode.steps,
      events: episode.events,
      end: episode.end,
      reward,
      usage: { ...episode.usage, usd: 0 },
    };
    return await use({ task, env, episode, lastRequest, trajectory });
  } finally {
    await env.close();
  }
}

/**
 * The task's environment; for a read-only terminal episode the terminal's own read-only mode (the workspace mounted
 * read-only, `bash` still runs, `write_file` not offered), so the agent can still look around with the shell. Retail
 * has no such mode: there the agent loop's `readOnly` refuses every write tool.
 */
export async function probeEnvironment(task: Task, options: { readOnly: boolean }): Promise<Environment> {
  if (!options.readOnly || task.suite !== "terminal") return createTaskEnvironment(task);
  const { createTerminalEnv } = await import("../envs/terminal");
  return createTerminalEnv({ ...(task.env as TerminalEnvSpec), forbidden: task.forbidden, readOnly: true });
}

function customerFor(task: Task, input: OpenRolloutInput): Customer | undefined {
  if (task.suite !== "retail") return undefined;
  const scenario = task.user ?? { reason_for_call: task.instruction, known_info: "" };
  if (input.customerModel)
    return new LlmCustomer(input.customerModel, scenario, task.instruction, input.seed);
  return new ScriptedCustomer(scenario);
}
