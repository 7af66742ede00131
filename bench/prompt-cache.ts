/**
 * What Anthropic prompt caching saves on a retail eval: the same `hsearch eval` run twice against the local fake
 * Anthropic server, with the agent's prompt caching on (the default: `cache_control` on the system prompt and the
 * last tool) and off (`--set agent.prompt_cache=false`). The server models Anthropic's prompt cache
 * (test/helpers/fake-prompt-cache.ts: breakpoints, at most 4, prefix order tools → system → messages, the model's
 * minimum cacheable length, tokens ≈ characters / 4) and reports `cache_creation_input_tokens` /
 * `cache_read_input_tokens` as the real API does; the input side is priced from config/prices.yaml (input, cache
 * write, cache read). The server plays an agent that authenticates by email, reads the profile and each order the
 * customer names, then declines; the scripted customer answers it.
 *
 * A third run measures OpenAI's automatic prompt caching the same way (`prompt_tokens_details.cached_tokens`; there
 * is nothing to switch on or off).
 *
 *   npx tsx bench/prompt-cache.ts [--model claude-haiku-4-5] [--openai-model gpt-4.1-mini] [--harness harnesses/bare]
 *     [--split search] [--concurrency 8]
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { findPrice, loadPriceTable } from "../src/models/prices";
import { SOURCE_CLI } from "../test/helpers/cli";
import { anthropicMessage, startFakeAnthropicServer } from "../test/helpers/fake-anthropic-server";
import {
  openaiCompletion,
  type RecordedRequest,
  type ScriptedReply,
  startFakeOpenAIServer,
} from "../test/helpers/fake-openai-server";
import { FakePromptCache, openAIUsage, withUsage } from "../test/helpers/fake-prompt-cache";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "claude-haiku-4-5" },
    "openai-model": { type: "string", default: "gpt-4.1-mini" },
    harness: { type: "string", default: "harnesses/bare" },
    split: { type: "string", default: "search" },
    concurrency: { type: "string", default: "8" },
  },
});

const MODEL = values.model as string;
/** The minimum cacheable prefix, in tokens, by model family (Anthropic's prompt-caching documentation). */
const MINIMUM_TOKENS =
  MODEL.startsWith("claude-sonnet-4") || MODEL.startsWith("claude-opus-4-1") ? 1024 : 4096;
const OPENAI_MODEL = values["openai-model"] as string;
function pricesOf(spec: string) {
  const price = findPrice(loadPriceTable(), spec);
  if (!price) throw new Error(`no price for ${spec} in config/prices.yaml`);
  return {
    input: price.input,
    cache_write: price.cache_write ?? price.input,
    cache_read: price.cache_read ?? price.input,
  };
}

interface Block {
  type: string;
  text?: string;
  name?: string;
  content?: unknown;
}
interface AnthropicBody {
  messages: Array<{ role: string; content: string | Block[] }>;
}
interface OpenAIBody {
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<{ function: { name: string } }>;
  }>;
}

/** One wire format's messages as (role, block) pairs in the Anthropic shape the scripted agent reads. */
function anthropicBlocks(body: AnthropicBody) {
  return body.messages.flatMap((message) =>
    (typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content).map(
      (block) => ({ role: message.role, block: block as Block }),
    ),
  );
}
function openAIBlocks(body: OpenAIBody) {
  return body.messages.flatMap((message) => {
    if (message.role === "tool")
      return [{ role: "user", block: { type: "tool_result", content: message.content ?? "" } as Block }];
    const text: Block[] = message.content ? [{ type: "text", text: message.content }] : [];
    const uses = (message.tool_calls ?? []).map(
      (call): Block => ({ type: "tool_use", name: call.function.name }),
    );
    return [...text, ...uses].map((block) => ({ role: message.role, block }));
  });
}

const ASK_EMAIL = "Could you tell me your email address?";

type Action = { tool: string; input: Record<string, unknown> } | { text: string };

/** The scripted agent: authenticate, read the profile, read each named order (at most 2), then decline. */
function agentTurn(blocks: Array<{ role: string; block: Block }>): Action {
  const userText = blocks
    .filter(({ role, block }) => role === "user" && block.type === "text")
    .map(({ block }) => block.text ?? "")
    .join("\n");
  const called = blocks.filter(({ block }) => block.type === "tool_use").map(({ block }) => block.name);
  const results = blocks
    .filter(({ block }) => block.type === "tool_result")
    .map(({ block }) => String(block.content ?? ""));
  const email = /[\w.+-]+@[\w-]+\.[\w.]+/.exec(userText)?.[0];
  const orders = [...new Set(userText.match(/#W\d{7}/g) ?? [])].slice(0, 2);
  if (!called.includes("find_user_id_by_email")) {
    if (email) return { tool: "find_user_id_by_email", input: { email } };
    const asked = blocks.some(({ role, block }) => role === "assistant" && block.text === ASK_EMAIL);
    if (!asked) return { text: ASK_EMAIL };
  }
  const userId = results[0]?.trim();
  if (userId && !userId.startsWith("Error") && !called.includes("get_user_details"))
    return { tool: "get_user_details", input: { user_id: userId } };
  const nextOrder = orders[called.filter((name) => name === "get_order_details").length];
  if (nextOrder) return { tool: "get_order_details", input: { order_id: nextOrder } };
  return { text: "I'm sorry, I can't complete this request as asked." };
}

type Arm = { provider: "anthropic"; promptCache: boolean } | { provider: "openai" };

async function measure(arm: Arm) {
  const cache = new FakePromptCache(MINIMUM_TOKENS);
  const anthropicServer = (request: RecordedRequest): ScriptedReply => {
    const body = request.body as AnthropicBody & Record<string, unknown>;
    const usage = cache.account(body);
    if ("error" in usage)
      return {
        status: 400,
        json: { type: "error", error: { type: "invalid_request_error", message: usage.error } },
      };
    const action = agentTurn(anthropicBlocks(body));
    const reply = anthropicMessage(
      "tool" in action ? { toolUses: [{ name: action.tool, input: action.input }] } : { text: action.text },
    );
    return withUsage(reply, { ...usage, output_tokens: 40 });
  };
  const openAIServer = (request: RecordedRequest): ScriptedReply => {
    const body = request.body as OpenAIBody & Record<string, unknown>;
    const accounted = cache.accountOpenAI(body);
    const action = agentTurn(openAIBlocks(body));
    const reply = openaiCompletion(
      "tool" in action
        ? { toolCalls: [{ name: action.tool, arguments: action.input }] }
        : { content: action.text },
    );
    return withUsage(reply, openAIUsage(accounted, 40));
  };
  const server =
    arm.provider === "anthropic"
      ? await startFakeAnthropicServer(anthropicServer)
      : await startFakeOpenAIServer(openAIServer);
  const modelSpec = arm.provider === "anthropic" ? `anthropic:${MODEL}` : `openai:${OPENAI_MODEL}`;
  const args = [
    ...SOURCE_CLI,
    "eval",
    "--harness",
    values.harness as string,
    "--suite",
    "retail",
    "--split",
    values.split as string,
    "--model",
    modelSpec,
    "--customer",
    "scripted",
    "--concurrency",
    values.concurrency as string,
    "--json",
    ...(arm.provider === "anthropic" && !arm.promptCache ? ["--set", "agent.prompt_cache=false"] : []),
  ];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: server.url,
        OPENAI_API_KEY: "bench-key",
        OPENAI_BASE_URL: `${server.url}/v1`,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`hsearch eval exited ${code}`)),
    );
  });
  await server.close();
  const report = JSON.parse(stdout) as {
    summary: { n_total: number; usage: { by_role: { agent: Record<string, number> } } };
  };
  const t = cache.totals;
  const prompt = t.input_tokens + t.cache_creation_input_tokens + t.cache_read_input_tokens;
  const price = pricesOf(modelSpec);
  const usd =
    (t.input_tokens * price.input +
      t.cache_creation_input_tokens * price.cache_write +
      t.cache_read_input_tokens * price.cache_read) /
    1e6;
  return {
    episodes: report.summary.n_total,
    prompt,
    ...t,
    usd,
    uncachedUsd: (prompt * price.input) / 1e6,
    hsearch: report.summary.usage.by_role.agent,
  };
}

const off = await measure({ provider: "anthropic", promptCache: false });
const on = await measure({ provider: "anthropic", promptCache: true });
const openai = await measure({ provider: "openai" });
const PRICE = pricesOf(`anthropic:${MODEL}`);
const row = (name: string, m: typeof off) =>
  `| ${name} | ${m.episodes} | ${m.requests} | ${m.prompt.toLocaleString("en")} | ${m.cache_creation_input_tokens.toLocaleString("en")} | ${m.cache_read_input_tokens.toLocaleString("en")} | ${m.input_tokens.toLocaleString("en")} | $${m.usd.toFixed(4)} |`;
console.log(
  `retail ${values.split}, ${values.harness}, anthropic:${MODEL} (cacheable from ${MINIMUM_TOKENS} tokens; $${PRICE.input} input, $${PRICE.cache_write} write, $${PRICE.cache_read} read per million)`,
);
console.log(
  "| agent prompt cache | episodes | requests | prompt tokens | cache writes | cache reads | uncached | input cost |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
console.log(row("off", off));
console.log(row("on (system + last tool)", on));
console.log(
  `saving: ${(100 * (1 - on.usd / off.usd)).toFixed(1)} % of the agent's input cost; prompt tokens per request ${Math.round(off.prompt / off.requests)}`,
);
console.log(
  `openai:${OPENAI_MODEL}, automatic caching (no markers): ${openai.cache_read_input_tokens.toLocaleString("en")} of ${openai.prompt.toLocaleString("en")} prompt tokens reported as cached_tokens over ${openai.requests} requests; input cost $${openai.usd.toFixed(4)} against $${openai.uncachedUsd.toFixed(4)} uncached (${(100 * (1 - openai.usd / openai.uncachedUsd)).toFixed(1)} % less)`,
);
// hsearch's own meter must agree with what the server billed.
for (const [name, m] of [
  ["anthropic off", off],
  ["anthropic on", on],
  ["openai", openai],
] as const)
  console.log(
    `hsearch meter (${name}): input ${m.hsearch.input_tokens}, cache writes ${m.hsearch.cache_write_tokens}, reads ${m.hsearch.cache_read_tokens}, usd ${m.hsearch.usd?.toFixed(4)} (server: ${m.prompt}, ${m.cache_creation_input_tokens}, ${m.cache_read_input_tokens})`,
  );
