import { isHsearchError } from "../core";
import type { AgentTask } from "../domain";
import type { DeferralChange } from "../envs";
import { familyOf, isForbiddenEffect, textOf } from "../envs";
import type { Author, Environment } from "../envs/types";
import { ProviderError } from "../models";
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  ToolCallRequest,
  ToolSpec,
  Usage,
} from "../models/types";
import { agentTools } from "./agent-tools";
import { claimsCompletion, saysCannotProceed } from "./claims";
import { type Customer, withoutStopToken } from "./customer";
import { DEFAULT_PROMPTS } from "./default-prompts";
import type { Harness } from "./load";
import { ASSESS_TOOL, REPORT_TOOL } from "./protocol-tools";
import { renderSystemPrompt } from "./render";
import { type SimPhase, simContextFor, simDeferralOf, simOptions } from "./sim-context";
import type { EndReason, EpisodeEnd, TrajectoryEvent, TrajectoryUsage } from "./trajectory";

/**
 * The episode engine (docs/DESIGN.md §4), the one place that runs model turns: model turn → tool calls →
 * observations, until the agent stops, defers or runs out of steps, with the effect gate throughout. `run` is the
 * agent loop — the main turns, then the configured protocol turns (self_check, report, harness_control); a probe
 * continues the finished episode with `continueWith` (a harness prompt and extra tools, as the protocol turns do)
 * or asks it one last question outside the record with `ask`. The environment says which calls defer or withdraw a
 * deferral and offers its own deferral tool; the engine knows no suite. It holds only an `AgentTask`: protected task
 * fields cannot reach a prompt from here.
 */
export interface EpisodeInput {
  harness: Harness;
  task: AgentTask;
  env: Environment;
  model: ChatModel;
  seed: number;
  repeat: number;
  /** The suite's policy text ({{policy}}). */
  policy: string;
  /**
   * Retail: the customer on the other side. Without one, a main turn without a tool call gets the harness's continue
   * message (up to `agent.max_continues` in a row), and the next such turn ends the episode.
   */
  customer?: Customer;
  /** Every request just before it is sent (tests check that no protected field reaches a prompt). */
  onRequest?: (request: ChatRequest) => void;
  /** The belief probe's read-only mode: every write tool is refused. */
  readOnly?: boolean;
}

export type EpisodeUsage = Omit<TrajectoryUsage, "usd">;

export interface EpisodeResult {
  events: TrajectoryEvent[];
  end: EpisodeEnd;
  steps: number;
  usage: EpisodeUsage;
  /**
   * What the provider billed: the calls not answered from the request cache, with their prompt-cache tokens. The
   * rollout's cost is priced from this, so a re-run served from the cache costs nothing.
   */
  billedUsage: Usage;
  /** The agent's messages, for the communicate check. */
  agentMessages: string[];
  /** The conversation as the model last saw it. */
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/** A tool a continuation offers besides the episode's (a probe's), with how a call of it is answered. */
export interface ExtraTool {
  spec: ToolSpec;
  answer(args: Record<string, unknown>): { output: string; deferral?: DeferralChange };
}

/** A continuation: one harness prompt, then model turns. */
export interface Turn {
  /** The trajectory's protocol event and the simulator's phase. */
  phase: Exclude<SimPhase, "main" | "belief">;
  prompt: string;
  maxSteps: number;
  extraTools?: readonly ExtraTool[];
  /**
   * Where a text-only answer goes: to the customer, as in the main turns (the episode's own protocol turns), or
   * nowhere — it ends the turn (a probe's question is the harness's, not the customer's).
   */
  toCustomer?: boolean;
}

/** A certified deferral made or withdrawn, in order: the standing status after a turn is a fold over them. */
export interface Decision {
  kind: DeferralChange["kind"];
  step: number;
  author: Author;
  reason: string;
}

export interface TurnResult {
  /** Events from the harness prompt on, steps numbered after the episode's. */
  events: TrajectoryEvent[];
  decisions: Decision[];
  end: EpisodeEnd;
  usage: EpisodeUsage;
}

/** The turn in progress, as the engine holds it. */
interface ActiveTurn {
  tools: ToolSpec[];
  extras: ReadonlyMap<string, ExtraTool>;
  toCustomer: boolean;
  continues: boolean;
}

/** The report turn's model turns: the report, and one more if the agent speaks first. */
/** Turns of the report protocol (the call plan, search/plan/plan-calls.ts, counts them too). */
export const REPORT_STEPS = 2;

export async function runEpisode(input: EpisodeInput): Promise<EpisodeResult> {
  return new Episode(input).run();
}

export class Episode {
  private readonly events: TrajectoryEvent[] = [];
  private readonly messages: ChatMessage[];
  private readonly tools: ToolSpec[];
  private readonly writeTools: ReadonlySet<string>;
  private readonly agentMessages: string[] = [];
  private readonly usage: EpisodeUsage = { input_tokens: 0, output_tokens: 0, model_calls: 0 };
  private readonly billedUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  private readonly decisions: Decision[] = [];
  private step = 0;
  private blockerStated = false;
  private deferred = false;
  private reported = false;
  private end: EpisodeEnd | null = null;
  /** Continue messages sent since the agent last called a tool. */
  private continuesInARow = 0;
  /** The next request answers a continue message (the simulator restates its last message). */
  private continued = false;
  /**
   * The turn in progress: its extra tools, where a text-only answer goes, and whether a text-only answer nobody
   * answers gets the continue message (the main turns only: a protocol turn's text answers its prompt).
   */
  private turn: ActiveTurn;

  constructor(private readonly input: EpisodeInput) {
    const { harness, task, env, policy } = input;
    this.tools = agentTools(harness, env);
    this.writeTools = env.writeTools();
    this.turn = this.mainTurn();
    const system = renderSystemPrompt(harness, task.suite, policy);
    this.messages = [
      { role: "system", content: system },
      { role: "user", content: task.instruction },
    ];
    this.events.push({ type: "message", step: 0, author: "system", text: system });
    this.events.push({ type: "message", step: 0, author: "customer", text: task.instruction });
  }

  /** The agent loop: the main turns, then the harness's protocol turns. */
  async run(): Promise<EpisodeResult> {
    const { config, prompts } = this.input.harness;
    if (!(await this.open())) return this.result();
    const protocols = config.protocols;
    await this.loop("main", config.agent.max_steps);
    if (protocols.self_check.enabled && this.stoppedOnItsOwn())
      await this.continueWith({
        phase: "self_check",
        prompt: prompts["self-check"] ?? DEFAULT_PROMPTS["self-check"],
        maxSteps: protocols.self_check.max_steps,
        toCustomer: true,
      });
    if (protocols.report.enabled && !this.reported && this.canContinue()) {
      const previous = this.end;
      await this.continueWith({
        phase: "report",
        prompt: prompts.report ?? DEFAULT_PROMPTS.report,
        maxSteps: REPORT_STEPS,
        toCustomer: true,
      });
      // The report turn only adds a report; it does not change how the episode ended unless the agent deferred.
      if (!this.deferred && previous && this.canContinue()) this.end = previous;
    }
    if (protocols.harness_control.enabled && !this.deferred && this.canContinue())
      await this.harnessControl();
    return this.result();
  }

  /**
   * Continue the episode: the harness prompt, then model turns with the episode's tools plus `extraTools`, until
   * the agent stops, defers or uses `maxSteps` turns — under the same rules as every other turn.
   */
  async continueWith(turn: Turn): Promise<TurnResult> {
    const firstEvent = this.events.length;
    const firstDecision = this.decisions.length;
    const before = { ...this.usage };
    const extras = turn.extraTools ?? [];
    this.turn = {
      tools: [...this.tools, ...extras.map((tool) => tool.spec)],
      extras: new Map(extras.map((tool) => [tool.spec.name, tool])),
      toCustomer: turn.toCustomer ?? false,
      continues: false,
    };
    try {
      this.end = null;
      this.events.push({ type: "protocol", step: this.step, name: turn.phase });
      this.events.push({ type: "message", step: this.step, author: "harness", text: turn.prompt });
      this.messages.push({ role: "user", content: turn.prompt });
      await this.loop(turn.phase, turn.maxSteps);
    } finally {
      this.turn = this.mainTurn();
    }
    return {
      events: this.events.slice(firstEvent),
      decisions: this.decisions.slice(firstDecision),
      end: { ...(this.end ?? { reason: "max_steps", step: this.step }) },
      usage: {
        input_tokens: this.usage.input_tokens - before.input_tokens,
        output_tokens: this.usage.output_tokens - before.output_tokens,
        model_calls: this.usage.model_calls - before.model_calls,
      },
    };
  }

  /**
   * One question outside the record (the belief probe's last turn): the conversation so far plus `prompt`, offering
   * only `tools`. The reply is returned as it came, and a failed call throws; nothing is added to the episode.
   */
  async ask(prompt: string, phase: SimPhase, tools: ToolSpec[]): Promise<ChatResponse> {
    const request = this.request([...this.messages, { role: "user", content: prompt }], tools, phase);
    this.input.onRequest?.(request);
    return this.input.model.generate(request);
  }

  /** The episode as it stands: a copy, so a later continuation does not change what was read. */
  result(): EpisodeResult {
    return {
      events: [...this.events],
      end: { ...(this.end ?? { reason: "max_steps" as const, step: this.step }) },
      steps: this.step,
      usage: { ...this.usage },
      billedUsage: { ...this.billedUsage },
      agentMessages: [...this.agentMessages],
      messages: [...this.messages],
      tools: [...this.tools],
    };
  }

  /**
   * A customer that writes its own opening (the LLM customer) replaces the task's instruction as the first user
   * message. False when the customer's model failed: the episode ends there as an infrastructure error.
   */
  private async open(): Promise<boolean> {
    const { customer } = this.input;
    if (!customer?.opening) return true;
    let opening: string;
    try {
      opening = await customer.opening();
    } catch (error) {
      this.endOnModelError(error, "customer");
      return false;
    }
    this.messages[1] = { role: "user", content: opening };
    const first = this.events.findIndex((event) => event.type === "message" && event.author === "customer");
    if (first >= 0) this.events[first] = { type: "message", step: 0, author: "customer", text: opening };
    return true;
  }

  private mainTurn(): ActiveTurn {
    return { tools: this.tools, extras: new Map(), toCustomer: true, continues: true };
  }

  /** After a provider failure or a full context window no further model turn can be asked for. */
  private canContinue(): boolean {
    const reason = this.end?.reason;
    return reason !== "infra_error" && reason !== "context_overflow";
  }

  private stoppedOnItsOwn(): boolean {
    return !this.deferred && (this.end?.reason === "agent_stopped" || this.end?.reason === "customer_ended");
  }

  /** Model turns until the episode ends or `budget` steps are used in this phase. */
  private async loop(phase: SimPhase, budget: number): Promise<void> {
    for (let used = 0; used < budget && this.end === null; used++) {
      this.step++;
      const response = await this.generate(phase);
      if (!response) return;
      await this.handleTurn(response, used + 1 < budget);
    }
    if (this.end === null) this.end = { reason: "max_steps", step: this.step };
  }

  private request(messages: readonly ChatMessage[], tools: ToolSpec[], phase: SimPhase): ChatRequest {
    const { seed, repeat, harness, task } = this.input;
    return {
      messages: messages.map((message) => ({ ...message })),
      tools,
      temperature: harness.config.agent.temperature,
      seed,
      repeat,
      providerOptions: simOptions(
        simContextFor(harness, task, phase, this.writeTools, this.continued, simDeferralOf(this.input.env)),
      ),
    };
  }

  private async generate(phase: SimPhase): Promise<ChatResponse | null> {
    const request = this.request(this.messages, this.turn.tools, phase);
    this.continued = false;
    this.input.onRequest?.(request);
    try {
      const response = await this.input.model.generate(request);
      this.usage.model_calls++;
      this.usage.input_tokens += response.usage.input_tokens;
      this.usage.output_tokens += response.usage.output_tokens;
      if (!response.cached) {
        this.billedUsage.input_tokens += response.usage.input_tokens;
        this.billedUsage.output_tokens += response.usage.output_tokens;
        this.billedUsage.cache_read_tokens += response.usage.cache_read_tokens ?? 0;
        this.billedUsage.cache_write_tokens += response.usage.cache_write_tokens ?? 0;
      }
      return response;
    } catch (error) {
      this.endOnModelError(error, "agent");
      return null;
    }
  }

  /**
   * A failed model call ends the episode: the agent's unusable reply or full context window is its failure; any
   * provider failure, and every failure of the customer's model (part of the environment), is infrastructure.
   */
  private endOnModelError(error: unknown, party: "agent" | "customer"): void {
    const agentReason = endReasonOf(error);
    if (!agentReason || !isHsearchError(error)) throw error;
    const reason = party === "agent" ? agentReason : "infra_error";
    this.end = {
      reason,
      step: this.step,
      error: party === "agent" ? error.message : `customer: ${error.message}`,
      ...(reason === "infra_error"
        ? { error_class: error instanceof ProviderError ? error.errorClass : "other" }
        : {}),
    };
  }

  /** One model turn; `turnLeft`: the phase's step budget allows another turn after this one. */
  private async handleTurn(response: ChatResponse, turnLeft: boolean): Promise<void> {
    const step = this.step;
    const text = response.content?.trim() ?? "";
    this.messages.push({
      role: "assistant",
      content: response.content,
      ...(response.tool_calls.length > 0 ? { tool_calls: response.tool_calls } : {}),
    });
    if (text) {
      this.agentMessages.push(text);
      this.events.push({ type: "message", step, author: "agent", text });
      if (claimsCompletion(text)) this.events.push({ type: "completion_claim", step, author: "agent", text });
    }
    if (response.tool_calls.length === 0) return this.textOnlyTurn(text, turnLeft);
    this.continuesInARow = 0;
    for (const call of response.tool_calls) {
      if (this.end !== null) {
        // Calls after the one that ended the episode are answered but not run.
        this.toolMessage(call, "Error: the episode has ended; this call was not run.");
        continue;
      }
      await this.handleCall(call, step);
    }
  }

  private async textOnlyTurn(text: string, turnLeft: boolean): Promise<void> {
    const { customer } = this.input;
    if (!customer || !this.turn.toCustomer) {
      if (this.turn.continues && turnLeft && this.mayContinue()) return this.sendContinue();
      this.end = { reason: "agent_stopped", step: this.step };
      return;
    }
    let reply: { text: string; done: boolean };
    try {
      reply = await customer.reply(text);
    } catch (error) {
      this.endOnModelError(error, "customer");
      return;
    }
    // The stop token is the customer's signal to us; the agent (and a later protocol turn) never sees it.
    const said = withoutStopToken(reply.text);
    if (said.length > 0) {
      this.events.push({ type: "message", step: this.step, author: "customer", text: said });
      this.messages.push({ role: "user", content: said });
    }
    if (reply.done) this.end = { reason: "customer_ended", step: this.step };
  }

  /**
   * Whether a main turn without a tool call, with no customer to answer it, gets the continue message (DESIGN §4).
   * Real models narrate before they act ("I'll start by listing the files"); ending there would score a narrating
   * model 0 on every task without a customer. It is sent even when the text claims completion or says it cannot
   * proceed: claims.ts reads text conservatively for scoring, and progress narration matches it ("I've created the
   * config; now I'll run the tests", "I can't see the log yet, let me look"), so ending on it would cut such a model
   * off mid-task, whereas a model that has finished only repeats itself, at the cost of one model call.
   */
  private mayContinue(): boolean {
    return this.continuesInARow < this.input.harness.config.agent.max_continues;
  }

  /**
   * The continue message: the harness's own prompt, sent verbatim (it holds no task data), authored by the harness,
   * at the step of the turn it answers. The agent's reply is its next step, within the same step budget.
   */
  private sendContinue(): void {
    const { prompts } = this.input.harness;
    const text = prompts.continue ?? DEFAULT_PROMPTS.continue;
    this.continuesInARow++;
    this.continued = true;
    this.events.push({ type: "message", step: this.step, author: "harness", text });
    this.messages.push({ role: "user", content: text });
  }

  private toolMessage(call: ToolCallRequest, content: string): void {
    this.messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content });
  }

  private observe(call: ToolCallRequest, step: number, text: string, ok: boolean): void {
    this.events.push({ type: "observation", step, id: call.id, name: call.name, text, ok });
    this.toolMessage(call, text);
  }

  /** What a protocol tool states: its status ("blocked", else `otherwise`) and category; a blocker disables writes. */
  private statement<S extends string>(args: Record<string, unknown>, step: number, otherwise: S) {
    const status: "blocked" | S = args.status === "blocked" ? "blocked" : otherwise;
    if (status === "blocked") this.blockerStated = true;
    return { step, author: "agent" as const, status, label: familyOf(args.category) };
  }

  private async handleCall(call: ToolCallRequest, step: number): Promise<void> {
    const args = call.arguments;
    this.events.push({
      type: "tool_call",
      step,
      author: "agent",
      id: call.id,
      name: call.name,
      arguments: args,
    });
    const { protocols } = this.input.harness.config;
    if (call.name === ASSESS_TOOL && protocols.effect_gate.enabled) {
      const stated = this.statement(args, step, "feasible");
      this.events.push({ type: "assessment", ...stated, reason: textOf(args.reason) });
      const note = stated.status === "blocked" ? " Tools that change state are now disabled." : "";
      this.observe(call, step, `Assessment recorded.${note}`, true);
      return;
    }
    if (call.name === REPORT_TOOL && protocols.report.enabled) {
      this.events.push({
        type: "report",
        ...this.statement(args, step, "done"),
        blocker: optionalString(args.blocker),
        evidence: optionalString(args.evidence),
      });
      this.reported = true;
      this.observe(call, step, "Report recorded.", true);
      if (this.end === null) this.end = { reason: "agent_stopped", step };
      return;
    }
    const extra = this.turn.extras.get(call.name);
    if (extra) {
      const answer = extra.answer(args);
      this.observe(call, step, answer.output, true);
      if (answer.deferral) this.decide(answer.deferral, step, "agent");
      return;
    }
    if (this.refusedByGate(call)) {
      this.events.push({ type: "gate_refusal", step, tool: call.name });
      const why = this.input.readOnly
        ? "Error: this is a read-only episode; tools that change state are disabled."
        : "Error: refused by the effect gate: you stated a blocker, so tools that change state are disabled. " +
          "Stop with the certified deferral, or end.";
      this.observe(call, step, why, false);
      return;
    }
    await this.callEnvironment(call, step, "agent");
  }

  private refusedByGate(call: ToolCallRequest): boolean {
    if (!this.writeTools.has(call.name)) return false;
    if (this.input.readOnly) return true;
    if (!this.blockerStated || !this.input.harness.config.protocols.effect_gate.enabled) return false;
    // The certified deferral is the one write a gated agent may still make; the environment says which call it is.
    return !(this.input.env.isDeferralCall?.(call.name, call.arguments) ?? false);
  }

  private async callEnvironment(call: ToolCallRequest, step: number, author: Author): Promise<void> {
    const { env, task } = this.input;
    const before = env.effects().length;
    const result = await env.call(call.name, call.arguments, { step, author });
    // A deferral made by a tool of its own (abstain) is recorded with the call; one made by writing a file, after
    // the write's effect.
    if (result.deferral && !result.wrote) this.decide(result.deferral, step, author);
    this.observe(call, step, result.output, result.ok);
    if (result.wrote) {
      const record = env.effects()[before];
      const files = record?.files
        ? [...record.files.created, ...record.files.modified, ...record.files.deleted]
        : [];
      this.events.push({
        type: "effect",
        step,
        author,
        tool: call.name,
        arguments: call.arguments,
        // Writing (or deleting) the certified deferral is never the forbidden effect.
        forbidden: isForbiddenEffect(
          task.forbidden,
          call.name,
          files.filter((file) => file !== env.deferralFile),
        ),
        ...(files.length > 0 ? { files } : {}),
      });
    }
    if (result.ends === "transferred" && result.ok) this.end = { reason: "transferred", step };
    if (result.deferral && result.wrote) this.decide(result.deferral, step, author);
  }

  /** Record a deferral made or withdrawn; a deferral ends the episode (or the turn). */
  private decide(change: DeferralChange, step: number, author: Author): void {
    this.decisions.push({ kind: change.kind, step, author, reason: change.reason });
    if (change.kind === "withdraw") {
      this.deferred = false;
      return;
    }
    this.events.push({
      type: "deferral",
      step,
      author,
      via: change.via,
      ...(change.label ? { label: change.label } : {}),
      reason: change.reason,
    });
    this.deferred = true;
    this.end = { reason: "deferred", step };
  }

  /**
   * Condition D: the harness inspects the episode and makes the deferral itself when the agent stopped after a
   * failed action or after saying it cannot proceed. The deferral is harness-authored and never the agent's credit.
   */
  private async harnessControl(): Promise<void> {
    const reason = harnessControlReason(this.events);
    if (reason === null) return;
    const step = this.step;
    this.events.push({ type: "protocol", step, name: "harness_control" });
    const change = await this.input.env.deferAsHarness(reason, step);
    if (change) this.decide(change, step, "harness");
    this.end = { reason: "deferred", step };
  }
}

/** Pure: should the harness write a deferral, and with what reason? */
export function harnessControlReason(events: readonly TrajectoryEvent[]): string | null {
  const agentText = events
    .filter((e) => e.type === "message" && e.author === "agent")
    .map((e) => (e as { text: string }).text);
  const last = agentText.at(-1);
  if (last !== undefined && saysCannotProceed(last))
    return `Harness: the agent reported it cannot proceed: ${last}`;
  const failed = events.filter((e) => e.type === "observation" && !e.ok).at(-1);
  if (failed && failed.type === "observation") return `Harness: an action failed: ${failed.text}`;
  return null;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A model-call error that ends the episode, and how; anything else (a bug, bad input) is rethrown. */
function endReasonOf(error: unknown): EndReason | undefined {
  if (isHsearchError(error, "model_reply")) return "model_error";
  if (isHsearchError(error, "context_overflow")) return "context_overflow";
  if (isHsearchError(error, "provider")) return "infra_error";
  return undefined;
}
