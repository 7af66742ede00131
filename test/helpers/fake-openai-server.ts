/**
 * A real HTTP server on 127.0.0.1 (port 0) that speaks the OpenAI chat.completions wire format, for end-to-end tests
 * of anything that calls `openai:<model>`: point OPENAI_BASE_URL (or the baseURL option) at `server.baseURL`.
 * Replies are scripted (a list, or a function of the request); every request is recorded, and the server counts how
 * many were in flight at once. `startFakeHttpServer` is the wire-neutral core, also used by the Anthropic fake.
 * Options: a seeded fault plan (`faults`, see fault-plan.ts) in front of the script, and the server's own bill — the
 * tokens of every well-formed 200 reply it sent, by model — to check a client's cost accounting against.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createFaultInjector, type FaultInjector, type FaultPlan, firstToolName } from "./fault-plan";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
}

export type ScriptedReply =
  /** A JSON body (status 200 unless given). */
  | { status?: number; headers?: Record<string, string>; json: unknown; delayMs?: number }
  /** A body sent as is, e.g. malformed JSON; content type application/json unless given. */
  | { status?: number; headers?: Record<string, string>; raw: string; contentType?: string; delayMs?: number }
  /** Never answer: the connection stays open until the client gives up, the server closes, or `dropAfterMs` passes. */
  | { hang: true; dropAfterMs?: number };

export type ReplyScript =
  | readonly ScriptedReply[]
  | ((request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

/**
 * A script for a test of a concurrency limit of `n`: the first `n` requests are held until the nth has arrived (or
 * `giveUpMs` has passed, so that a limit below `n` fails the test's assertion instead of hanging it), then each
 * request gets `reply`. The server then surely sees `n` in flight, however slowly the machine schedules the client;
 * a fixed delay per reply did not ensure it (an early reply could finish before the wave's last request arrived).
 */
export function holdFirst(n: number, reply: () => ScriptedReply, giveUpMs = 10_000): ReplyScript {
  let release: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async (_request, index) => {
    if (index === n - 1) release();
    if (index < n)
      await Promise.race([arrived, new Promise((resolve) => setTimeout(resolve, giveUpMs).unref())]);
    return reply();
  };
}

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Requests being handled right now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** What the server billed: the usage of every 200 JSON reply that carried one, in total and by requested model. */
  readonly billed: Bill;
  /** Faults the plan injected, by kind (all zero without a plan). */
  readonly faults: FaultInjector["injected"] | null;
  close(): Promise<void>;
}

export interface BilledTokens {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** Of input_tokens: read from / written to the provider's prompt cache. */
  cache_read_tokens: number;
  cache_write_tokens: number;
}

export interface Bill extends BilledTokens {
  by_model: Record<string, BilledTokens>;
}

export interface FakeServerOptions {
  /** A seeded fault plan in front of the script. */
  faults?: FaultPlan;
}

/** Wire-specific parts of a fake server: how its replies state usage, and its fault replies. */
interface WireSupport {
  usageOf(json: unknown): Omit<BilledTokens, "calls"> | null;
  faults: Parameters<typeof createFaultInjector>[1];
}

function emptyBill(): BilledTokens {
  return { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
}

function addTo(bill: BilledTokens, usage: Omit<BilledTokens, "calls">): void {
  bill.calls += 1;
  bill.input_tokens += usage.input_tokens;
  bill.output_tokens += usage.output_tokens;
  bill.cache_read_tokens += usage.cache_read_tokens;
  bill.cache_write_tokens += usage.cache_write_tokens;
}

export async function startFakeHttpServer(
  script: ReplyScript,
  options: FakeServerOptions & { wire?: WireSupport } = {},
): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const billed: Bill = { ...emptyBill(), by_model: {} };
  const bill = (request: RecordedRequest, json: unknown): void => {
    const usage = options.wire?.usageOf(json);
    if (!usage) return;
    const model = String((request.body as { model?: unknown } | null)?.model ?? "");
    addTo(billed, usage);
    billed.by_model[model] ??= emptyBill();
    addTo(billed.by_model[model], usage);
  };
  const injector =
    options.faults && options.wire ? createFaultInjector(options.faults, options.wire.faults) : null;
  if (options.faults && !options.wire) throw new Error("fake server: a fault plan needs a wire format");
  const effective = injector ? injector.script(script) : script;
  let inFlight = 0;
  let maxInFlight = 0;

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = (): void => {
      if (!counted) return;
      counted = false;
      inFlight -= 1;
    };
    res.on("close", done);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
      };
      const index = requests.length;
      requests.push(recorded);
      void replyTo(res, effective, recorded, index, bill);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    billed,
    faults: injector?.injected ?? null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function replyTo(
  res: ServerResponse,
  script: ReplyScript,
  request: RecordedRequest,
  index: number,
  bill: (request: RecordedRequest, json: unknown) => void,
): Promise<void> {
  let reply: ScriptedReply | undefined;
  try {
    reply =
      typeof script === "function"
        ? await script(request, index)
        : (script as readonly ScriptedReply[])[index];
  } catch (error) {
    reply = {
      status: 400,
      json: { error: { message: `fake server: script threw: ${(error as Error).message}` } },
    };
  }
  // A 400 (never retried) makes a test that runs past its script fail loudly instead of hanging or retrying.
  reply ??= {
    status: 400,
    json: { error: { message: `fake server: no scripted reply for request ${index + 1}` } },
  };
  if ("hang" in reply) {
    const drop = reply.dropAfterMs;
    if (drop !== undefined) setTimeout(() => res.destroy(), drop).unref();
    return;
  }
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (res.destroyed) return;
  const payload = "json" in reply ? JSON.stringify(reply.json) : reply.raw;
  const contentType = "raw" in reply ? (reply.contentType ?? "application/json") : "application/json";
  res.writeHead(reply.status ?? 200, { "content-type": contentType, ...reply.headers });
  res.end(payload);
  if ((reply.status ?? 200) === 200 && "json" in reply) bill(request, reply.json);
}

export interface FakeOpenAIServer extends FakeHttpServer {
  /** `http://127.0.0.1:<port>/v1`, the value for OPENAI_BASE_URL. */
  baseURL: string;
}

/** The OpenAI wire's usage block and fault replies. */
const OPENAI_WIRE: WireSupport = {
  usageOf(json) {
    const usage = (json as { usage?: Record<string, unknown> } | null)?.usage;
    if (!usage || typeof usage.prompt_tokens !== "number") return null;
    const details = usage.prompt_tokens_details as { cached_tokens?: number } | undefined;
    return {
      input_tokens: usage.prompt_tokens,
      output_tokens: Number(usage.completion_tokens ?? 0),
      cache_read_tokens: details?.cached_tokens ?? 0,
      cache_write_tokens: 0,
    };
  },
  faults: {
    error: (status, message, headers) => openaiError(status, message, headers),
    emptyChoices: () => ({
      json: { id: "chatcmpl-fault", object: "chat.completion", model: "fake-model", choices: [] },
    }),
    malformedToolArgs: (request) =>
      openaiCompletion({ toolCalls: [{ name: firstToolName(request), arguments: '{"not json' }] }),
  },
};

/** With no script, every request gets the answer "ok". */
export async function startFakeOpenAIServer(
  script: ReplyScript = () => openaiCompletion({ content: "ok" }),
  options: FakeServerOptions = {},
): Promise<FakeOpenAIServer> {
  const server = await startFakeHttpServer(script, { ...options, wire: OPENAI_WIRE });
  return Object.assign(server, { baseURL: `${server.url}/v1` });
}

export interface OpenAICompletionSpec {
  content?: string | null;
  /** `arguments` may be a value (sent as its JSON) or a string (sent as is, e.g. to send invalid JSON). */
  toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
  /** `cached_tokens`: of prompt_tokens, read from the provider's prompt cache (prompt_tokens_details). */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  model?: string;
  finishReason?: string;
  status?: number;
  delayMs?: number;
}

/** A chat.completions response body, as OpenAI sends it. */
export function openaiCompletion(spec: OpenAICompletionSpec): ScriptedReply {
  const toolCalls = (spec.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const usage = spec.usage ?? { prompt_tokens: 12, completion_tokens: 3 };
  return {
    status: spec.status,
    delayMs: spec.delayMs,
    json: {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1_700_000_000,
      model: spec.model ?? "fake-model",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: spec.content ?? null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: spec.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        },
      ],
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        ...(usage.cached_tokens === undefined
          ? {}
          : { prompt_tokens_details: { cached_tokens: usage.cached_tokens } }),
      },
    },
  };
}

/** An OpenAI-style error response. */
export function openaiError(
  status: number,
  message: string,
  headers?: Record<string, string>,
): ScriptedReply {
  return { status, headers, json: { error: { message, type: "fake_error", code: null, param: null } } };
}
