import { createTaskEnvironment, suitePolicy, verifyTask } from "../envs/suite-env";
import { costOf, type PriceTable } from "../models/prices";
import type { ChatModel, ChatRequest } from "../models/types";
import { type Task, toAgentTask } from "../tasks/types";
import { runEpisode } from "./agent-loop";
import { type Customer, LlmCustomer, ScriptedCustomer } from "./customer";
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
}

const UNFINISHED = new Set(["max_steps", "model_error", "infra_error"]);

/**
 * One (harness, task, seed, repeat) episode → a trajectory: set up the task's environment, run the agent loop on
 * the agent's view of the task, then run the native verifier.
 */
export async function runRollout(input: RolloutInput): Promise<Trajectory> {
  const { harness, task, model, seed, repeat } = input;
  const env = await createTaskEnvironment(task);
  try {
    const episode = await runEpisode({
      harness,
      task: toAgentTask(task),
      env,
      model,
      seed,
      repeat,
      policy: suitePolicy(task.suite),
      customer: customerFor(task, input),
      onRequest: input.onRequest,
    });
    const infra = episode.end.reason === "infra_error";
    const reward = infra
      ? null
      : await verifyTask(task, env, {
          agentMessages: episode.agentMessages,
          completed: !UNFINISHED.has(episode.end.reason),
        });
    const usd = input.prices
      ? costOf(input.prices, model.id, {
          input_tokens: episode.usage.input_tokens,
          output_tokens: episode.usage.output_tokens,
        }).usd
      : 0;
    return {
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
      usage: { ...episode.usage, usd },
    };
  } finally {
    await env.close();
  }
}

function customerFor(task: Task, input: RolloutInput): Customer | undefined {
  if (task.suite !== "retail") return undefined;
  const scenario = task.user ?? { reason_for_call: task.instruction, known_info: "" };
  if (input.customerModel)
    return new LlmCustomer(input.customerModel, scenario, task.instruction, input.seed);
  return new ScriptedCustomer(scenario);
}
