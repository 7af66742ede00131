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
 *   npx tsx bench/prompt-cache.ts [--model claude-haiku-4-5] [--harness harnesses/bare] [--split search] [--concurrency 8]
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { findPrice, loadPriceTable } from "../src/models/prices";
import { SOURCE_CLI } from "../test/helpers/cli";
import { anthropicMessage, startFakeAnthropicServer } from "../test/helpers/fake-anthropic-server";
import { FakePromptCache } from "../test/helpers/fake-prompt-cache";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "claude-haiku-4-5" },
    harness: { type: "string", default: "harnesses/bare" },
    split: { type: "string", default: "search" },
    concurrency: { type: "string", default: "8" },
  },
});

const MODEL = values.model as string;
/** The minimum cacheable prefix, in tokens, by model family (Anthropic's prompt-caching documentation). */
const MINIMUM_TOKENS =
  MODEL.startsWith("claude-sonnet-4") || MODEL.startsWith("claude-opus-4-1") ? 1024 : 4096;
const price = findPrice(loadPriceTable(), `anthropic:${MODEL}`);
if (!price) throw new Error(`no price for anthropic:${MODEL} in config/prices.yaml`);
const PRICE = {
  input: price.input,
  cache_write: price.cache_write ?? price.input,
  cache_read: price.cache_read ?? price.input,
};

interface Block {
  type: string;
  text?: string;
  name?: string;
  content?: unknown;
}
interface Body {
  messages: Array<{ role: string; content: string | Block[] }>;
}

const blocksOf = (content: string | Block[]): Block[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

const ASK_EMAIL = "Could you tell me your email address?";

/** The scripted agent: authenticate, read the profile, read each named order (at most 2), then decline. */
function agentTurn(body: Body) {
  const blocks = body.messages.flatMap((message) =>
    blocksOf(message.content).map((block) => ({ role: message.role, block })),
  );
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
  const use = (name: string, input: Record<string, unknown>) =>
    anthropicMessage({ toolUses: [{ id: `toolu_${called.length + 1}`, name, input }] });
  if (!called.includes("find_user_id_by_email")) {
    if (email) return use("find_user_id_by_email", { email });
    const asked = blocks.some(({ role, block }) => role === "assistant" && block.text === ASK_EMAIL);
    if (!asked) return anthropicMessage({ text: ASK_EMAIL });
  }
  const userId = results[0]?.trim();
  if (userId && !userId.startsWith("Error") && !called.includes("get_user_details"))
    return use("get_user_details", { user_id: userId });
  const nextOrder = orders[called.filter((name) => name === "get_order_details").length];
  if (nextOrder) return use("get_order_details", { order_id: nextOrder });
  return anthropicMessage({ text: "I'm sorry, I can't complete this request as asked." });
}

async function measure(promptCache: boolean) {
  const cache = new FakePromptCache(MINIMUM_TOKENS);
  const server = await startFakeAnthropicServer((request) => {
    const body = request.body as Body & Record<string, unknown>;
    const usage = cache.account(body);
    if ("error" in usage)
      return {
        status: 400,
        json: { type: "error", error: { type: "invalid_request_error", message: usage.error } },
      };
    const reply = agentTurn(body) as { json: { usage: Record<string, number> } };
    reply.json.usage = { ...usage, output_tokens: 40 };
    return reply;
  });
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
    `anthropic:${MODEL}`,
    "--customer",
    "scripted",
    "--concurrency",
    values.concurrency as string,
    "--json",
    ...(promptCache ? [] : ["--set", "agent.prompt_cache=false"]),
  ];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: server.url },
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
  const usd =
    (t.input_tokens * PRICE.input +
      t.cache_creation_input_tokens * PRICE.cache_write +
      t.cache_read_input_tokens * PRICE.cache_read) /
    1e6;
  return {
    episodes: report.summary.n_total,
    prompt,
    ...t,
    usd,
    hsearch: report.summary.usage.by_role.agent,
  };
}

const off = await measure(false);
const on = await measure(true);
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
// hsearch's own meter must agree with what the server billed.
for (const [name, m] of [
  ["off", off],
  ["on", on],
] as const)
  console.log(
    `hsearch meter (${name}): input ${m.hsearch.input_tokens}, cache writes ${m.hsearch.cache_write_tokens}, reads ${m.hsearch.cache_read_tokens}, usd ${m.hsearch.usd?.toFixed(4)} (server: ${m.prompt}, ${m.cache_creation_input_tokens}, ${m.cache_read_input_tokens})`,
  );
