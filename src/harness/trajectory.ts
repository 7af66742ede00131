/**
 * The authenticated record of an episode (docs/DESIGN.md §1): every message, tool call, observation, effect and artifact
 * with its author and step. Scoring reads only this and the task; it never re-runs anything.
 */

import type { Family, Kind, SuiteName } from "../domain";
import type { DeferralVia } from "../envs";
import type { Author, EpisodeImage } from "../envs/types";

export type { DeferralVia };

export type TrajectoryEvent =
  /** Text shown to or written by a party. `customer` is the simulated retail customer or the terminal user. */
  | { type: "message"; step: number; author: Author | "customer" | "system"; text: string }
  | {
      type: "tool_call";
      step: number;
      author: Author;
      id: string;
      name: string;
      arguments: Record<string, unknown>;
    }
  | { type: "observation"; step: number; id: string; name: string; text: string; ok: boolean }
  /** A state change (successful write). `forbidden` is true when the task forbids it. */
  | {
      type: "effect";
      step: number;
      author: Author;
      tool: string;
      arguments: Record<string, unknown>;
      forbidden: boolean;
      files?: string[];
    }
  /** The agent's (or harness's) stated view of feasibility: a blocker assessment, or "feasible". */
  | {
      type: "assessment";
      step: number;
      author: Author;
      status: "feasible" | "blocked";
      label?: Family;
      reason: string;
    }
  /** A certified deferral: the abstain tool or infeasible.md. */
  | { type: "deferral"; step: number; author: Author; via: DeferralVia; label?: Family; reason: string }
  /** The `report` protocol's structured final report. */
  | {
      type: "report";
      step: number;
      author: Author;
      status: "done" | "blocked";
      label?: Family;
      blocker?: string;
      evidence?: string;
    }
  /** The agent claimed the task is done. */
  | { type: "completion_claim"; step: number; author: Author; text: string }
  /** A write refused by the effect gate. */
  | { type: "gate_refusal"; step: number; tool: string }
  /** A protocol turn began (self_check, report, harness_control, challenge). */
  | { type: "protocol"; step: number; name: string };

export type EndReason =
  | "agent_stopped" // a turn without a tool call ended it (without a customer: after the continue messages)
  | "deferred" // a certified deferral ended the episode
  | "transferred" // retail: transfer_to_human_agents
  | "customer_ended" // retail: the customer ended the conversation
  | "max_steps"
  | "model_error" // the model's reply was unusable (empty, malformed) after retries: the agent's failure
  | "context_overflow" // the conversation outgrew the model's context window: the agent's (harness's) failure
  | "infra_error"; // the provider failed: not scored as the agent's failure

/** How an episode ended; `error_class` says which kind of infrastructure error (rate_limit, server, …). */
export interface EpisodeEnd {
  reason: EndReason;
  step: number;
  error?: string;
  error_class?: string;
}

export interface TrajectoryUsage {
  input_tokens: number;
  output_tokens: number;
  usd: number;
  model_calls: number;
}

/**
 * What the task's native verifier reported besides its reward, for people reading the episode (the viewer): never
 * shown to the agent or a proposer, since it is derived from the protected `verify`. Terminal: the test script's
 * merged output (cut to VERIFIER_OUTPUT_BYTES, head and tail), its exit status and why a reward is 0 without the
 * script saying so.
 */
export interface VerifierReport {
  output: string;
  exit_code: number | null;
  timed_out: boolean;
  /** No reward file, not a number, a timeout; null when the script wrote its reward. */
  problem: string | null;
  duration_ms: number;
}

export interface Trajectory {
  task_id: string;
  suite: SuiteName;
  kind: Kind;
  family?: Family;
  model: string;
  harness: string;
  seed: number;
  repeat: number;
  /** Agent steps used (model turns in the main episode). */
  steps: number;
  events: TrajectoryEvent[];
  end: EpisodeEnd;
  /** Native verifier reward (0 or 1); null for infra errors. */
  reward: number | null;
  /** The task's own container image the episode ran in (prebuilt or built from its Dockerfile), where it had one. */
  image?: EpisodeImage;
  /** The verifier's own report, where it gives one (terminal tasks whose verifier ran). */
  verifier?: VerifierReport;
  usage: TrajectoryUsage;
  /**
   * Every model call of the episode (the agent's and the retail customer's) was answered from the request cache: the
   * rollout cost nothing, and `budget.max_rollouts` does not count it. Absent otherwise, and when it made no call.
   */
  from_cache?: true;
}
