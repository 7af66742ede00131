import { isHsearchError } from "../core/errors";
import { type AgentTask, FAMILIES, type Family } from "../domain/task";
import { isForbiddenEffect } from "../envs/forbidden";
import type { Environment } from "../envs/types";
import type { EpisodeResult } from "../harness/agent-loop";
import type { Harness } from "../harness/load";
import { ABSTAIN_TOOL, ASSESS_TOOL, REPORT_TOOL } from "../harness/protocol-tools";
import { type SimContext, withSimPhase } from "../harness/sim-context";
import type { EndReason, TrajectoryEvent } from "../harness/trajectory";
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  ToolCallRequest,
  ToolSpec,
} from "../models/types";
import { WITHDRAW_DEFERRAL_TOOL } from "./probe-tools";

/**
 * Continuing a finished episode with one harness prompt (the challenge probe): the prompt is appended to the
 * episode's messages, then model turns run with the episode's tools (plus `extraTools`) until the agent answers in
 * text, defers, or uses `maxSteps` turns. It follows the agent loop's rules for what it handles — the retail
 * `abstain` tool and the terminal `infeasible.md` file are certified deferrals, the effect gate stays shut once a
 * blocker was stated — and adds one: `withdraw_deferral` (or deleting `infeasible.md`) withdraws a deferral.
 * Decisions are listed in order, so the standing status after the continuation is a fold over them.
 */
export interface ContinuationInput {
  harness: Harness;
  task: AgentTask;
  env: Environment;
  model: ChatModel;
  episode: EpisodeResult;
  /** The episode's last request: seed, repeat, temperature and the simulator context come from it. */
  lastRequest: ChatRequest;
  prompt: string;
  phase: SimContext["phase"];
  extraTools?: readonly ToolSpec[];
  maxSteps: number;
  onRequest?: (request: ChatRequest) => void;
}

export interface Decision {
  kind: "defer" | "withdraw";
  step: number;
  author: "agent" | "harness";
  reason: string;
}

export interface ContinuationResult {
  /** Events from the harness prompt on, steps numbered after the episode's. */
  events: TrajectoryEvent[];
  decisions: Decision[];
  end: { reason: Exclude<EndReason, "transferred" | "customer_ended">; step: number; error?: string };
  usage: { input_tokens: number; output_tokens: number; model_calls: number };
}

const DEFERRAL_FILE = "infeasible.md";

export async function continueEpisode(input: ContinuationInput): Promise<ContinuationResult> {
  const { episode, env, task, harness } = input;
  const tools = [...episode.tools, ...(input.extraTools ?? [])];
  const offered = new Set(tools.map((tool) => tool.name));
  const writeTools = env.writeTools();
  const messages: ChatMessage[] = [...episode.messages, { role: "user", content: input.prompt }];
  const events: TrajectoryEvent[] = [
    { type: "protocol", step: episode.steps, name: input.phase },
    { type: "message", step: episode.steps, author: "harness", text: input.prompt },
  ];
  const decisions: Decision[] = [];
  const usage = { input_tokens: 0, output_tokens: 0, model_calls: 0 };
  const gated = harness.config.protocols.effect_gate.enabled;
  let blockerStated = episode.events.some(
    (event) =>
      (event.type === "assessment" || event.type === "report") &&
      event.author === "agent" &&
      event.status === "blocked",
  );
  let step = episode.steps;
  let end: ContinuationResult["end"] | null = null;

  const observe = (call: ToolCallRequest, text: string, ok: boolean) => {
    events.push({ type: "observation", step, id: call.id, name: call.name, text, ok });
    messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content: text });
  };

  const handleCall = async (call: ToolCallRequest): Promise<void> => {
    const args = call.arguments;
    events.push({ type: "tool_call", step, author: "agent", id: call.id, name: call.name, arguments: args });
    if (call.name === ABSTAIN_TOOL && offered.has(ABSTAIN_TOOL)) {
      const reason = text(args.reason);
      const label = family(args.category);
      events.push({
        type: "deferral",
        step,
        author: "agent",
        via: "abstain",
        ...(label ? { label } : {}),
        reason,
      });
      decisions.push({ kind: "defer", step, author: "agent", reason });
      observe(call, "Deferral recorded. The conversation ends.", true);
      end = { reason: "deferred", step };
      return;
    }
    if (call.name === WITHDRAW_DEFERRAL_TOOL && offered.has(WITHDRAW_DEFERRAL_TOOL)) {
      decisions.push({ kind: "withdraw", step, author: "agent", reason: text(args.reason) });
      observe(call, "Deferral withdrawn.", true);
      return;
    }
    if (call.name === ASSESS_TOOL && offered.has(ASSESS_TOOL)) {
      const status = args.status === "blocked" ? "blocked" : "feasible";
      const label = family(args.category);
      events.push({
        type: "assessment",
        step,
        author: "agent",
        status,
        ...(label ? { label } : {}),
        reason: text(args.reason),
      });
      if (status === "blocked") blockerStated = true;
      observe(call, "Assessment recorded.", true);
      return;
    }
    if (call.name === REPORT_TOOL && offered.has(REPORT_TOOL)) {
      const status = args.status === "blocked" ? "blocked" : "done";
      // The whole report, as the agent loop records it: label, blocker and evidence as well as the status.
      const label = family(args.category);
      events.push({
        type: "report",
        step,
        author: "agent",
        status,
        ...(label ? { label } : {}),
        blocker: typeof args.blocker === "string" ? args.blocker : undefined,
        evidence: typeof args.evidence === "string" ? args.evidence : undefined,
      });
      if (status === "blocked") blockerStated = true;
      observe(call, "Report recorded.", true);
      return;
    }
    const deferralWrite = env.isDeferralCall?.(call.name, args) ?? false;
    if (writeTools.has(call.name) && gated && blockerStated && !deferralWrite) {
      events.push({ type: "gate_refusal", step, tool: call.name });
      observe(
        call,
        "Error: refused by the effect gate: you stated a blocker, so tools that change state are disabled.",
        false,
      );
      return;
    }
    const before = env.effects().length;
    const result = await env.call(call.name, args, { step, author: "agent" });
    observe(call, result.output, result.ok);
    for (const record of env.effects().slice(before)) {
      if (!record.wrote) continue;
      const files = record.files ?? { created: [], modified: [], deleted: [] };
      const touched = [...files.created, ...files.modified, ...files.deleted];
      events.push({
        type: "effect",
        step,
        author: "agent",
        tool: record.tool,
        arguments: record.arguments,
        forbidden: isForbiddenEffect(
          task.forbidden,
          record.tool,
          touched.filter((file) => file !== DEFERRAL_FILE),
        ),
        ...(touched.length > 0 ? { files: touched } : {}),
      });
      if (files.deleted.includes(DEFERRAL_FILE))
        decisions.push({ kind: "withdraw", step, author: "agent", reason: `deleted ${DEFERRAL_FILE}` });
      else if (files.created.includes(DEFERRAL_FILE) || files.modified.includes(DEFERRAL_FILE)) {
        // The environment read the reason from the file, whichever tool wrote it (bash has no `content`).
        const made = env.deferral?.();
        const reason = made && made.step === step ? made.reason : text(args.content);
        events.push({ type: "deferral", step, author: "agent", via: "infeasible.md", reason });
        decisions.push({ kind: "defer", step, author: "agent", reason });
        end = { reason: "deferred", step };
      }
    }
  };

  for (let used = 0; used < input.maxSteps && end === null; used++) {
    step++;
    const response = await generate(input, messages, tools);
    if ("error" in response) {
      end = { reason: response.reason, step, error: response.error };
      break;
    }
    usage.model_calls++;
    usage.input_tokens += response.usage.input_tokens;
    usage.output_tokens += response.usage.output_tokens;
    messages.push({
      role: "assistant",
      content: response.content,
      ...(response.tool_calls.length > 0 ? { tool_calls: response.tool_calls } : {}),
    });
    const said = response.content?.trim() ?? "";
    if (said) events.push({ type: "message", step, author: "agent", text: said });
    if (response.tool_calls.length === 0) {
      end = { reason: "agent_stopped", step };
      break;
    }
    for (const call of response.tool_calls) {
      if (end !== null) observe(call, "Error: the episode has ended; this call was not run.", false);
      else await handleCall(call);
    }
  }
  return { events, decisions, end: end ?? { reason: "max_steps", step }, usage };
}

type Generated = ChatResponse | { error: string; reason: "model_error" | "infra_error" };

async function generate(
  input: ContinuationInput,
  messages: ChatMessage[],
  tools: ToolSpec[],
): Promise<Generated> {
  const { lastRequest } = input;
  const request: ChatRequest = {
    messages: messages.map((message) => ({ ...message })),
    tools,
    ...(lastRequest.temperature !== undefined ? { temperature: lastRequest.temperature } : {}),
    seed: lastRequest.seed,
    ...(lastRequest.repeat !== undefined ? { repeat: lastRequest.repeat } : {}),
    ...withSimPhase(lastRequest, input.phase),
  };
  input.onRequest?.(request);
  try {
    return await input.model.generate(request);
  } catch (error) {
    // As in the agent loop: an unusable reply is the agent's failure, a provider failure is infrastructure.
    if (isHsearchError(error, "model_reply")) return { error: error.message, reason: "model_error" };
    if (isHsearchError(error, "provider")) return { error: error.message, reason: "infra_error" };
    throw error;
  }
}

/** The standing deferral after a list of decisions, starting from `before`. */
export function standingDeferral(before: boolean, decisions: readonly Decision[]): boolean {
  return decisions.reduce(
    (standing, decision) => (decision.author !== "agent" ? standing : decision.kind === "defer"),
    before,
  );
}

function text(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

function family(value: unknown): Family | undefined {
  return FAMILIES.find((candidate) => candidate === value);
}
