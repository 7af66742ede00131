/**
 * Any trajectory as ATIF, the Agent Trajectory Interchange Format of Harbor's RFC 0001 (v1.4, whose field list this
 * follows): one step per turn (system prompt, user instruction, each agent model turn with its tool calls and their
 * observations), the episode's totals as final_metrics, and hsearch's own record — the end, the reward, the events
 * ATIF has no field for — under `extra`. A trajectory holds no protected task field, and the verifier's output
 * (which can quote its tests) is left out.
 */
import type { Trajectory } from "../harness";
import { type Turn, turnsOf } from "./turns";

export const ATIF_VERSION = "ATIF-v1.4";

export interface AtifOptions {
  /** hsearch's version, the agent's version in ATIF. */
  agentVersion: string;
  /** The run's session id; default task, seed and repeat. */
  sessionId?: string;
}

export interface AtifStep {
  step_id: number;
  source: "system" | "user" | "agent";
  message: string;
  model_name?: string;
  tool_calls?: Array<{ tool_call_id: string; function_name: string; arguments: Record<string, unknown> }>;
  observation?: { results: Array<{ source_call_id?: string; content: string }> };
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name: string; extra: Record<string, unknown> };
  steps: AtifStep[];
  notes: string;
  final_metrics: {
    total_prompt_tokens: number;
    total_completion_tokens: number;
    total_cost_usd: number;
    total_steps: number;
    extra: Record<string, unknown>;
  };
  extra: Record<string, unknown>;
}

export function toAtif(trajectory: Trajectory, options: AtifOptions): AtifTrajectory {
  const steps = turnsOf(trajectory).map((turn, index) => atifStep(turn, index + 1, trajectory.model));
  return {
    schema_version: ATIF_VERSION,
    session_id: options.sessionId ?? `${trajectory.task_id}-s${trajectory.seed}-r${trajectory.repeat}`,
    agent: {
      name: "hsearch",
      version: options.agentVersion,
      model_name: trajectory.model,
      extra: { harness: trajectory.harness },
    },
    steps,
    notes:
      "Written by hsearch. Each agent step is one model turn; hsearch's own events of a step (effects, " +
      "assessments, certified deferrals, reports) are in its extra.hsearch_events, the episode's end in extra.end.",
    final_metrics: {
      total_prompt_tokens: trajectory.usage.input_tokens,
      total_completion_tokens: trajectory.usage.output_tokens,
      total_cost_usd: trajectory.usage.usd,
      total_steps: steps.length,
      extra: { model_calls: trajectory.usage.model_calls, agent_steps: trajectory.steps },
    },
    extra: {
      task_id: trajectory.task_id,
      suite: trajectory.suite,
      seed: trajectory.seed,
      repeat: trajectory.repeat,
      end: trajectory.end,
      reward: trajectory.reward,
      ...(trajectory.verifier
        ? {
            verifier: {
              exit_code: trajectory.verifier.exit_code,
              timed_out: trajectory.verifier.timed_out,
              duration_ms: trajectory.verifier.duration_ms,
            },
          }
        : {}),
    },
  };
}

function atifStep(turn: Turn, stepId: number, model: string): AtifStep {
  const results = turn.results.map((result) => ({
    ...(result.callId !== undefined ? { source_call_id: result.callId } : {}),
    content: result.text,
  }));
  return {
    step_id: stepId,
    source: turn.role,
    message: turn.text,
    ...(turn.role === "agent" ? { model_name: model } : {}),
    ...(turn.calls.length > 0
      ? {
          tool_calls: turn.calls.map((call) => ({
            tool_call_id: call.id,
            function_name: call.name,
            arguments: call.arguments,
          })),
        }
      : {}),
    ...(results.length > 0 ? { observation: { results } } : {}),
    extra: {
      hsearch_step: turn.step,
      ...(turn.results.some((result) => !result.ok)
        ? {
            failed_calls: turn.results
              .filter((result) => !result.ok)
              .map((result) => result.callId ?? result.name),
          }
        : {}),
      ...(turn.events.length > 0 ? { hsearch_events: turn.events } : {}),
    },
  };
}
