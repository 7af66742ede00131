/**
 * One relayed conversation: the episode engine itself (src/harness/episode.ts), run with an environment and a
 * customer that are the client on the other side of the wire. Where the engine calls a tool of the environment, the
 * conversation replies to the client with that tool call and waits for the client's next request to bring the
 * result; where the engine hands a text-only turn to the customer, it replies with the text and waits for the
 * client's next user message. Everything the harness does between — the protocol tools it answers itself, the effect
 * gate's refusals, the self-check and report turns, the continue message, the step budget, the harness's deferral —
 * is the engine's own code running unchanged, so a served conversation is the episode `hsearch eval` would run.
 */
import type { AgentTask, Suite } from "../domain";
import { abstainDeferral } from "../envs";
import type { Author, EffectRecord, Environment, ToolResult } from "../envs/types";
import type { Harness, TrajectoryEvent } from "../harness";
import { type Customer, Episode, type EpisodeResult, matchingRules, STOP_TOKEN } from "../harness";
import type { ChatModel, ChatResponse, ToolCallRequest, ToolSpec, Usage } from "../models/types";
import { type ClientMessage, type ParsedRequest, type Reply, WireError } from "./wire";

/** What the server knows of the harness and of the client's tools (the same for every conversation). */
export interface RelaySetup {
  harness: Harness;
  model: ChatModel;
  /** How the harness's prompts name the deferral, and what kind of task the conversation is. */
  suite: Suite;
  /** Client tools that change state: the effect gate refuses them once a blocker is stated. */
  writeTools: ReadonlySet<string>;
  /** The client tool whose call is the certified deferral (retail `abstain`), if the client offers it. */
  deferralTool: string;
  /** Client tools whose successful call ends the conversation (retail `transfer_to_human_agents`). */
  endingTools: ReadonlySet<string>;
  /**
   * A user answers the agent's text-only turns (the client sends the next user message), as the retail customer
   * does; without one the harness answers them with its continue message, as for a terminal agent.
   */
  customer: boolean;
}

/** A line of the conversation's log. */
export type LogLine = Record<string, unknown>;

/** What the engine waits for from the client. */
type Awaiting =
  | { kind: "tool"; call: ToolCallRequest; resolve(output: string): void; reject(error: unknown): void }
  | { kind: "customer"; resolve(text: string): void; reject(error: unknown): void };

/** Harness actions the client never sees as such: listed in the reply's `hsearch.interventions` and the log. */
export function interventionOf(event: TrajectoryEvent): Record<string, unknown> | null {
  switch (event.type) {
    case "gate_refusal":
      return {
        kind: "gate_refusal",
        tool: event.tool,
        why: "the effect gate refused this write: the agent stated a blocker, so tools that change state are disabled",
      };
    case "assessment":
      return { kind: "assessment", status: event.status, reason: event.reason };
    case "report":
      return { kind: "report", status: event.status };
    case "protocol":
      return { kind: "protocol_turn", name: event.name };
    case "message":
      return event.author === "harness" ? { kind: "harness_message", text: event.text } : null;
    case "deferral":
      return event.author === "harness" ? { kind: "harness_deferral", reason: event.reason } : null;
    default:
      return null;
  }
}

/** The id prefix of a tool call the harness makes itself (its deferral): the client runs it like any other. */
export const HARNESS_CALL_PREFIX = "hsearch-harness-";

export class Conversation {
  private episode: Episode | null = null;
  private result: EpisodeResult | null = null;
  private failure: unknown = null;
  private waiter: ((reply: Reply | WireError) => void) | null = null;
  private awaiting: Awaiting | null = null;
  /** The model's text of the turn in progress, until a reply carries it to the client. */
  private undelivered = "";
  private lastResponse: ChatResponse | null = null;
  private callCursor = 0;
  private readonly harnessCalls: ToolCallRequest[] = [];
  private readonly effectLog: EffectRecord[] = [];
  private fields: ParsedRequest["fields"] = {};
  private usage: Usage = { input_tokens: 0, output_tokens: 0 };
  private eventsSeen = 0;
  private modelCalls = 0;
  private modelCallsReported = 0;
  /** The key of the last request answered and its reply: a client that retries it gets the same reply again. */
  lastRequestKey = "";
  lastReply: Reply | null = null;
  lastActive = Date.now();

  constructor(
    readonly id: string,
    private readonly setup: RelaySetup,
    private readonly log: (line: LogLine) => void,
  ) {}

  get finished(): boolean {
    return this.result !== null || this.failure !== null;
  }

  get busy(): boolean {
    return this.waiter !== null;
  }

  /**
   * The next reply: the first request opens the episode with the client's system text as {{policy}} and its user
   * message as the opening; later requests bring the answer the engine waits for (`fresh`: the messages after the
   * client's last assistant message).
   */
  async handle(request: ParsedRequest, fresh: readonly ClientMessage[]): Promise<Reply> {
    if (this.waiter)
      throw new WireError(409, "A request of this conversation is already in progress.", "conflict_error");
    this.lastActive = Date.now();
    this.fields = request.fields;
    const next = new Promise<Reply | WireError>((resolve) => {
      this.waiter = resolve;
    });
    try {
      if (!this.episode) this.open(request);
      else if (this.finished) this.emit(this.endReply());
      else this.deliver(fresh);
    } catch (error) {
      this.waiter = null;
      throw error;
    }
    const reply = await next;
    if (reply instanceof WireError) throw reply;
    return reply;
  }

  /** Give up a conversation the client left: the engine's pending call fails and the episode stops there. */
  abandon(): void {
    const awaiting = this.awaiting;
    this.awaiting = null;
    awaiting?.reject(new WireError(410, "conversation expired"));
  }

  private open(request: ParsedRequest): void {
    const { harness, suite } = this.setup;
    const system = request.messages.filter((m) => m.role === "system").map((m) => m.content);
    const users = request.messages.filter((m) => m.role === "user").map((m) => m.content);
    if (request.messages.some((m) => m.role === "assistant" || m.role === "tool") || users.length === 0)
      throw new WireError(
        400,
        "hsearch serve does not know this conversation (it restarted, or the conversation expired): start it again from its first user message.",
        "invalid_request_error",
        "messages",
        "conversation_unknown",
      );
    // The client's system text is the harness's {{policy}}; a harness prompt without the placeholder keeps it after.
    const served: Harness = harness.system.includes("{{policy}}")
      ? harness
      : { ...harness, system: `${harness.system}\n\n{{policy}}` };
    this.episode = new Episode({
      harness: served,
      task: servedTask(this.id, suite, users.join("\n\n")),
      env: this.environment(request.tools),
      model: this.relayModel(),
      seed: 0,
      repeat: 0,
      policy: system.join("\n\n"),
      ...(this.setup.customer ? { customer: this.customer() } : {}),
    });
    this.log({ type: "open", conversation: this.id, harness: harness.hash, model: this.setup.model.id });
    this.episode.run().then(
      (result) => this.finish(result),
      (error: unknown) => this.fail(error),
    );
  }

  private deliver(fresh: readonly ClientMessage[]): void {
    const awaiting = this.awaiting;
    if (!awaiting)
      throw new WireError(409, "The conversation is not waiting for an answer.", "conflict_error");
    if (awaiting.kind === "tool") {
      const answer = fresh.find((m) => m.role === "tool" && m.tool_call_id === awaiting.call.id);
      if (!answer)
        throw new WireError(
          400,
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${awaiting.call.id}.`,
          "invalid_request_error",
          "messages",
          "tool_result_missing",
        );
      this.awaiting = null;
      awaiting.resolve(answer.content);
      return;
    }
    const said = fresh.filter((m) => m.role === "user").map((m) => m.content);
    if (said.length === 0)
      throw new WireError(
        400,
        "The conversation waits for the user's next message.",
        "invalid_request_error",
        "messages",
        "user_message_missing",
      );
    this.awaiting = null;
    awaiting.resolve(said.join("\n\n"));
  }

  /** The backing model as the engine calls it: the client's own request fields added, each call logged and metered. */
  private relayModel(): ChatModel {
    const backing = this.setup.model;
    return {
      id: backing.id,
      provider: backing.provider,
      generate: async (request, options) => {
        const response = await backing.generate({ ...request, ...this.fields }, options);
        this.lastResponse = response;
        this.callCursor = 0;
        this.undelivered = response.content?.trim() ?? "";
        this.modelCalls++;
        this.usage = {
          input_tokens: this.usage.input_tokens + response.usage.input_tokens,
          output_tokens: this.usage.output_tokens + response.usage.output_tokens,
          cache_read_tokens: (this.usage.cache_read_tokens ?? 0) + (response.usage.cache_read_tokens ?? 0),
        };
        this.log({
          type: "model_call",
          conversation: this.id,
          call: this.modelCalls,
          model: response.model ?? backing.id,
          usage: response.usage,
          cached: response.cached === true,
          tool_calls: response.tool_calls.map((call) => call.name),
        });
        return response;
      },
    };
  }

  private environment(clientTools: readonly ToolSpec[]): Environment {
    const { deferralTool, writeTools } = this.setup;
    const offered = clientTools.find((tool) => tool.name === deferralTool);
    return {
      suite: this.setup.suite,
      tools: () => clientTools.filter((tool) => tool.name !== deferralTool),
      writeTools: () => writeTools,
      ...(offered ? { deferralTool: offered, isDeferralCall: (name: string) => name === deferralTool } : {}),
      call: (name, args, ctx) => this.relayCall(name, args, ctx),
      effects: () => this.effectLog,
      deferAsHarness: async (reason) => {
        if (!offered) return undefined;
        this.harnessCalls.push({
          id: `${HARNESS_CALL_PREFIX}${this.harnessCalls.length + 1}`,
          name: deferralTool,
          arguments: { reason },
        });
        return abstainDeferral({ reason });
      },
      close: async () => {},
    };
  }

  /** A tool call the engine lets through: the client runs it; its result comes with the next request. */
  private async relayCall(
    name: string,
    args: unknown,
    ctx: { step: number; author: Author },
  ): Promise<ToolResult> {
    const call = this.callOf(name, args);
    const output = await new Promise<string>((resolve, reject) => {
      this.awaiting = { kind: "tool", call, resolve, reject };
      this.emit(this.replyWith([call], this.takeText()));
    });
    const ok = !/^\s*error\b/i.test(output);
    const wrote = ok && this.setup.writeTools.has(name);
    this.effectLog.push({
      step: ctx.step,
      author: ctx.author,
      tool: name,
      arguments: call.arguments,
      ok,
      wrote,
    });
    return {
      output,
      ok,
      wrote,
      ...(ok && name === this.setup.deferralTool ? { deferral: abstainDeferral(args) } : {}),
      ...(ok && this.setup.endingTools.has(name) ? { ends: "transferred" as const } : {}),
    };
  }

  /** The model's call the engine passes on (the engine hands over the call's own arguments object, in order). */
  private callOf(name: string, args: unknown): ToolCallRequest {
    const calls = this.lastResponse?.tool_calls ?? [];
    for (let index = this.callCursor; index < calls.length; index++) {
      const call = calls[index];
      if (call && call.name === name && call.arguments === args) {
        this.callCursor = index + 1;
        return call;
      }
    }
    throw new Error(`serve: the engine called ${name}, which the model's last reply does not hold`);
  }

  private customer(): Customer {
    return {
      reply: async (text) => {
        const said = await new Promise<string>((resolve, reject) => {
          this.awaiting = { kind: "customer", resolve, reject };
          this.undelivered = "";
          this.emit(this.replyWith([], text));
        });
        return { text: said, done: said.includes(STOP_TOKEN) };
      },
    };
  }

  private takeText(): string {
    const text = this.undelivered;
    this.undelivered = "";
    return text;
  }

  /** A reply with the usage metered and the interventions made since the last reply. */
  private replyWith(toolCalls: ToolCallRequest[], content: string, ended?: EpisodeResult): Reply {
    const events = this.episode?.result().events ?? [];
    const interventions: Record<string, unknown>[] = [];
    const { harness } = this.setup;
    for (const event of events.slice(this.eventsSeen)) {
      const intervention = interventionOf(event);
      if (intervention) interventions.push(intervention);
      this.log({ type: "event", conversation: this.id, event, intervention: intervention !== null });
      // The playbook acts through the prompt, as in eval; which rules an observation matches is for the reader.
      if (event.type === "observation" && harness.config.playbook.enabled) {
        const rules = matchingRules(harness.playbook, event.text).map((rule) => rule.id);
        if (rules.length > 0)
          this.log({ type: "playbook_match", conversation: this.id, step: event.step, rules });
      }
    }
    this.eventsSeen = events.length;
    const usage = this.usage;
    const modelCalls = this.modelCalls - this.modelCallsReported;
    this.usage = { input_tokens: 0, output_tokens: 0 };
    this.modelCallsReported = this.modelCalls;
    const harnessCalls = toolCalls
      .filter((call) => call.id.startsWith(HARNESS_CALL_PREFIX))
      .map((call) => call.id);
    return {
      content,
      toolCalls,
      usage,
      hsearch: {
        conversation_id: this.id,
        model_calls: modelCalls,
        interventions,
        ...(harnessCalls.length > 0 ? { harness_calls: harnessCalls } : {}),
        ...(ended ? { ended: ended.end } : {}),
      },
    };
  }

  /** The reply once the episode has ended (again, to a client that goes on after the end). */
  private endReply(): Reply | WireError {
    if (this.failure !== null) return errorOf(this.failure);
    const result = this.result as EpisodeResult;
    return this.replyWith([], "", result);
  }

  private finish(result: EpisodeResult): void {
    this.result = result;
    // The last events go to the log before its end line.
    const reply = this.replyWith([...this.harnessCalls], this.takeText(), result);
    this.log({
      type: "end",
      conversation: this.id,
      end: result.end,
      steps: result.steps,
      usage: result.usage,
    });
    const end = result.end;
    if (end.reason === "infra_error" || end.reason === "model_error" || end.reason === "context_overflow") {
      const failure = new WireError(
        end.reason === "context_overflow" ? 400 : 502,
        `the backing model failed: ${end.error ?? end.reason}`,
        end.reason === "context_overflow" ? "invalid_request_error" : "server_error",
        null,
        end.reason === "context_overflow" ? "context_length_exceeded" : "upstream_error",
      );
      this.failure = failure;
      this.emit(failure);
      return;
    }
    this.emit(reply);
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.log({
      type: "failure",
      conversation: this.id,
      error: String(error instanceof Error ? error.message : error),
    });
    this.emit(errorOf(error));
  }

  private emit(reply: Reply | WireError): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (reply instanceof WireError || !reply) {
      waiter?.(reply);
      return;
    }
    this.lastReply = reply;
    waiter?.(reply);
  }
}

/**
 * The task as the engine holds it: only the opening and the suite (whose deferral the prompts name). The server knows
 * no protected field and no forbidden effect of the client's task: those are the client's to score.
 */
function servedTask(id: string, suite: Suite, instruction: string): AgentTask {
  const common = {
    id: `serve-${id}`.replace(/[^A-Za-z0-9._-]/g, "-"),
    split: "search" as const,
    kind: "feasible" as const,
    instruction,
    forbidden: {},
    env: {},
  };
  return suite === "retail" ? { ...common, suite } : { ...common, suite };
}

function errorOf(error: unknown): WireError {
  if (error instanceof WireError) return error;
  return new WireError(
    500,
    `hsearch serve: ${error instanceof Error ? error.message : String(error)}`,
    "server_error",
  );
}
