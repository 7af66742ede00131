/**
 * A seeded fault plan for the fake provider servers: a share of calls fails the way real providers fail — 429 with
 * retry-after, 500, 503, a hung connection, a truncated JSON body, a reply without choices, tool arguments that are
 * not JSON — chosen by a hash of (seed, request body, how many times that body was seen), so the same plan meets the
 * same faults whatever order concurrent calls arrive in. Wire-neutral: each fake server supplies the fault replies of
 * its own wire format (`FaultReplies`).
 *
 *   startFakeOpenAIServer(script, { faults: { seed: 1, rate: 0.2 } })
 */
import { createHash } from "node:crypto";
import type { RecordedRequest, ReplyScript, ScriptedReply } from "./fake-openai-server";

export const FAULT_KINDS = [
  "rate_limit",
  "server_error",
  "unavailable",
  "hang",
  "truncated_json",
  "empty_choices",
  "malformed_tool_args",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultPlan {
  seed: number;
  /** Share of eligible calls that fail, in [0, 1]. */
  rate: number;
  /** Which faults to draw from (uniformly); default every kind. */
  kinds?: readonly FaultKind[];
  /**
   * `first_call` (default): only the first call of each distinct request body may fail, so the client's retry gets
   * the answer — faults change timing and call counts, never results. `every_call`: every call draws afresh.
   */
  scope?: "first_call" | "every_call";
  /** The retry-after (seconds) a 429 asks for; default 0. */
  retryAfterSeconds?: number;
  /** A hung call drops its connection after this long; default never (the client's timeout ends it). */
  hangMs?: number;
}

/** The wire format's version of each fault that is a well-formed HTTP answer. */
export interface FaultReplies {
  error(status: number, message: string, headers?: Record<string, string>): ScriptedReply;
  /** A 200 whose body has no usable answer (OpenAI: `choices: []`; Anthropic: `content: []`). */
  emptyChoices(request: RecordedRequest): ScriptedReply;
  /** A 200 with a tool call whose arguments are not a JSON object. */
  malformedToolArgs(request: RecordedRequest): ScriptedReply;
}

export interface FaultInjector {
  /** Faults sent so far, by kind. */
  readonly injected: Record<FaultKind, number>;
  /** The script with the plan in front of it: a faulted call never reaches the script (a list script's index skips it). */
  script(inner: ReplyScript): ReplyScript;
}

export function createFaultInjector(plan: FaultPlan, replies: FaultReplies): FaultInjector {
  if (!(plan.rate >= 0 && plan.rate <= 1)) throw new Error(`fault plan: rate ${plan.rate} is not in [0, 1]`);
  const kinds = plan.kinds ?? FAULT_KINDS;
  if (kinds.length === 0) throw new Error("fault plan: no fault kinds");
  const injected = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const seen = new Map<string, number>();

  const draw = (request: RecordedRequest): FaultKind | null => {
    const body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    const bodyKey = createHash("sha256").update(`${request.path}\n${body}`).digest("hex");
    const call = seen.get(bodyKey) ?? 0;
    seen.set(bodyKey, call + 1);
    if (call > 0 && (plan.scope ?? "first_call") === "first_call") return null;
    const digest = createHash("sha256").update(`${plan.seed}\n${bodyKey}\n${call}`).digest();
    if (digest.readUInt32BE(0) / 2 ** 32 >= plan.rate) return null;
    return kinds[digest.readUInt32BE(4) % kinds.length] as FaultKind;
  };

  const reply = (kind: FaultKind, request: RecordedRequest): ScriptedReply => {
    switch (kind) {
      case "rate_limit":
        return replies.error(429, "fake server: rate limit reached, slow down", {
          "retry-after": String(plan.retryAfterSeconds ?? 0),
        });
      case "server_error":
        return replies.error(500, "fake server: internal server error");
      case "unavailable":
        return replies.error(503, "fake server: service unavailable");
      case "hang":
        return plan.hangMs === undefined ? { hang: true } : { hang: true, dropAfterMs: plan.hangMs };
      case "truncated_json":
        return { raw: '{"id":"fault","object":"chat.completion","choices":[{"index":0,"mess' };
      case "empty_choices":
        return replies.emptyChoices(request);
      case "malformed_tool_args":
        return replies.malformedToolArgs(request);
    }
  };

  return {
    injected,
    script(inner) {
      let passed = 0;
      return (request) => {
        const kind = draw(request);
        if (kind) {
          injected[kind] += 1;
          return reply(kind, request);
        }
        const index = passed++;
        return typeof inner === "function" ? inner(request, index) : (inner[index] as ScriptedReply);
      };
    },
  };
}

/** The first tool a request offers (OpenAI or Anthropic shape), for a faulty tool call that names a real tool. */
export function firstToolName(request: RecordedRequest): string {
  const tools = (request.body as { tools?: Array<{ name?: string; function?: { name?: string } }> }).tools;
  const first = tools?.[0];
  return first?.function?.name ?? first?.name ?? "fault_tool";
}
