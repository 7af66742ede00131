/**
 * An evaluation as an Inspect AI eval log (JSON), the format `inspect view` opens: one sample per episode with its
 * messages (system prompt, instruction, the agent's turns with their tool calls, the tool results), its scores —
 * the M0–M3 ladder, strict and relaxed SA and authorship on a blocked task, solve and false abstention on a feasible
 * one, the native reward — and the episode's end. It follows Inspect's published log schema (version 2 of the log,
 * schema from inspect_ai's src/inspect_ai/_view/www/log-schema.json, vendored in test/fixtures/inspect with the
 * commit it came from): every field that schema requires is present, null where hsearch has nothing to say.
 * Protected task fields never reach here (a trajectory and a score hold none); the judge's verdict is reduced to
 * its booleans, and the verifier's output (which can quote its tests) is left out.
 */
import type { Trajectory } from "../harness";
import type { RolloutRecord, RunRecord } from "../store/types";
import { type Turn, turnsOf } from "./turns";

/** The eval log format this writes (Inspect's `version`). */
export const INSPECT_LOG_VERSION = 2;

export interface InspectEpisode {
  rollout: RolloutRecord;
  trajectory: Trajectory;
}

export interface InspectLogInput {
  run: RunRecord;
  /** The evaluated harness's commit. */
  commit: string;
  episodes: readonly InspectEpisode[];
  /** hsearch's version, recorded as the package that wrote the log. */
  hsearchVersion: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Score fields exported per episode, in this order; absent ones (another task kind's) are left out. */
const SCORE_FIELDS = [
  "m0",
  "m1",
  "m2",
  "m3",
  "strict_sa",
  "relaxed_sa",
  "authorship",
  "naive_m2",
  "post_hoc",
  "solve",
  "false_abstention",
  "harness_deferral",
  "reward",
] as const;

const GENERATE_CONFIG_FIELDS = [
  "max_retries",
  "timeout",
  "attempt_timeout",
  "max_connections",
  "system_message",
  "max_tokens",
  "top_p",
  "temperature",
  "stop_seqs",
  "best_of",
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "seed",
  "top_k",
  "num_choices",
  "logprobs",
  "top_logprobs",
  "parallel_tool_calls",
  "internal_tools",
  "max_tool_output",
  "cache_prompt",
  "verbosity",
  "effort",
  "reasoning_effort",
  "reasoning_tokens",
  "reasoning_summary",
  "reasoning_history",
  "response_schema",
  "extra_headers",
  "extra_body",
  "modalities",
  "cache",
  "batch",
] as const;

const EVAL_CONFIG_FIELDS = [
  "limit",
  "sample_id",
  "sample_shuffle",
  "epochs",
  "epochs_reducer",
  "approval",
  "fail_on_error",
  "continue_on_fail",
  "retry_on_error",
  "message_limit",
  "token_limit",
  "time_limit",
  "working_limit",
  "cost_limit",
  "max_samples",
  "max_dataset_memory",
  "max_tasks",
  "max_subprocesses",
  "max_sandboxes",
  "sandbox_cleanup",
  "log_samples",
  "log_realtime",
  "log_images",
  "log_model_api",
  "log_buffer",
  "log_shared",
  "score_display",
] as const;

export function toInspectLog(input: InspectLogInput): JsonObject {
  const { run, episodes } = input;
  const model = episodes[0]?.trajectory.model ?? "unknown";
  const samples = episodes.map(sampleOf);
  const ended = run.ended_at ?? run.created_at;
  return {
    version: INSPECT_LOG_VERSION,
    status: run.state === "failed" ? "error" : "success",
    eval: {
      eval_set_id: null,
      eval_id: `${run.id}-${input.commit.slice(0, 12)}`,
      run_id: run.id,
      created: run.created_at,
      task: run.name,
      task_id: run.id,
      task_version: 0,
      task_file: null,
      task_display_name: null,
      task_registry_name: null,
      task_attribs: {},
      task_args: {},
      task_args_passed: {},
      solver: "hsearch",
      solver_args: { harness: input.commit },
      solver_args_passed: {},
      tags: null,
      dataset: {
        name: run.name,
        location: null,
        samples: samples.length,
        sample_ids: samples.map((sample) => sample.id as string),
        shuffled: false,
      },
      sandbox: null,
      model,
      model_generate_config: nulls(GENERATE_CONFIG_FIELDS),
      model_base_url: null,
      model_args: {},
      model_roles: null,
      config: { ...nulls(EVAL_CONFIG_FIELDS), epochs: epochsOf(episodes) },
      revision: null,
      packages: { hsearch: input.hsearchVersion },
      metadata: { hsearch_run_kind: run.kind, seed: run.seed },
      scorers: null,
      metrics: null,
    },
    plan: {
      name: "plan",
      steps: [{ solver: "hsearch", params: { harness: input.commit }, params_passed: {} }],
      finish: null,
      config: nulls(GENERATE_CONFIG_FIELDS),
    },
    results: {
      total_samples: samples.length,
      completed_samples: episodes.filter((episode) => episode.trajectory.end.reason !== "infra_error").length,
      early_stopping: null,
      scores: SCORE_FIELDS.flatMap((field) => evalScore(field, episodes)),
      metadata: null,
    },
    stats: { started_at: run.created_at, completed_at: ended, model_usage: {}, role_usage: {} },
    error: null,
    samples,
  };
}

function sampleOf({ rollout, trajectory }: InspectEpisode): JsonObject {
  const turns = turnsOf(trajectory);
  const messages = turns.flatMap((turn) => messagesOf(turn, trajectory.model));
  const instruction = turns.find((turn) => turn.role === "user")?.text ?? "";
  const lastAgent = [...turns].reverse().find((turn) => turn.role === "agent");
  const usage = {
    input_tokens: trajectory.usage.input_tokens,
    output_tokens: trajectory.usage.output_tokens,
    total_tokens: trajectory.usage.input_tokens + trajectory.usage.output_tokens,
    input_tokens_cache_write: null,
    input_tokens_cache_read: null,
    reasoning_tokens: null,
    total_cost: trajectory.usage.usd,
  };
  const infra = trajectory.end.reason === "infra_error";
  return {
    id: `${rollout.task_id}-r${rollout.repeat}`,
    epoch: rollout.repeat + 1,
    input: instruction,
    choices: null,
    target: "",
    sandbox: null,
    files: null,
    setup: null,
    messages,
    output: {
      model: trajectory.model,
      choices: lastAgent
        ? [{ message: assistantMessage(lastAgent, trajectory.model), stop_reason: "stop", logprobs: null }]
        : [],
      completion: lastAgent?.text ?? "",
      usage,
      time: null,
      metadata: null,
      error: null,
    },
    scores: infra ? null : { hsearch: scoreOf(rollout, trajectory) },
    metadata: {
      task_id: rollout.task_id,
      suite: trajectory.suite,
      kind: rollout.kind,
      family: rollout.family,
      split: rollout.split,
      seed: rollout.seed,
      repeat: rollout.repeat,
      harness: trajectory.harness,
      end: trajectory.end as unknown as Json,
      steps: trajectory.steps,
    },
    store: {},
    events: [],
    timelines: null,
    model_usage: { [trajectory.model]: usage },
    role_usage: {},
    started_at: null,
    completed_at: rollout.created_at,
    total_time: null,
    working_time: null,
    uuid: rollout.key,
    invalidation: null,
    error: infra
      ? { message: trajectory.end.error ?? "infrastructure error", traceback: "", traceback_ansi: "" }
      : null,
    error_retries: null,
    attachments: {},
    events_data: null,
    limit: trajectory.end.reason === "max_steps" ? { type: "message", limit: trajectory.steps } : null,
  };
}

function messagesOf(turn: Turn, model: string): JsonObject[] {
  const base = { id: null, source: null, metadata: { hsearch_step: turn.step } };
  if (turn.role === "system") {
    const results = turn.results.map((result) => `\n${result.name}: ${result.text}`).join("");
    return [{ ...base, content: turn.text + results, role: "system" }];
  }
  if (turn.role === "user") return [{ ...base, content: turn.text, role: "user", tool_call_id: null }];
  return [
    assistantMessage(turn, model),
    ...turn.results.map((result) => ({
      ...base,
      content: result.text,
      role: "tool",
      tool_call_id: result.callId ?? null,
      function: result.name,
      error: result.ok ? null : { type: "unknown", message: firstLine(result.text) },
    })),
  ];
}

function assistantMessage(turn: Turn, model: string): JsonObject {
  return {
    id: null,
    content: turn.text,
    source: "generate",
    metadata: turn.events.length > 0 ? { hsearch_events: turn.events as unknown as Json } : null,
    role: "assistant",
    tool_calls:
      turn.calls.length > 0
        ? turn.calls.map((call) => ({
            id: call.id,
            function: call.name,
            arguments: call.arguments as JsonObject,
            parse_error: null,
            view: null,
            type: "function",
          }))
        : null,
    model,
  };
}

function scoreOf(rollout: RolloutRecord, trajectory: Trajectory): JsonObject {
  const stored = rollout.scores as unknown as Record<string, unknown>;
  const value: Record<string, boolean | number> = {};
  for (const field of SCORE_FIELDS) {
    const got = stored[field];
    if (typeof got === "boolean" || typeof got === "number") value[field] = got;
  }
  const judge = stored.judge as Record<string, unknown> | undefined;
  if (judge && typeof judge.reason_matches === "boolean") value.reason_matches = judge.reason_matches;
  return {
    value,
    answer: null,
    explanation: `ended: ${trajectory.end.reason}`,
    metadata: { task_kind: rollout.kind },
    history: [],
  };
}

function evalScore(field: (typeof SCORE_FIELDS)[number], episodes: readonly InspectEpisode[]): JsonObject[] {
  const values = episodes.flatMap(({ rollout }) => {
    const got = (rollout.scores as unknown as Record<string, unknown>)[field];
    return typeof got === "boolean" ? [got ? 1 : 0] : typeof got === "number" ? [got] : [];
  });
  if (values.length === 0) return [];
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return [
    {
      name: field,
      scorer: "hsearch",
      reducer: null,
      scored_samples: values.length,
      unscored_samples: episodes.length - values.length,
      params: {},
      metrics: { mean: { name: "mean", value: mean, params: {}, metadata: null } },
      metadata: null,
    },
  ];
}

function epochsOf(episodes: readonly InspectEpisode[]): number | null {
  if (episodes.length === 0) return null;
  return Math.max(...episodes.map(({ rollout }) => rollout.repeat)) + 1;
}

function nulls(fields: readonly string[]): JsonObject {
  return Object.fromEntries(fields.map((field) => [field, null]));
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? "";
}
