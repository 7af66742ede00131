/**
 * Wall time of a whole search against a local OpenAI-compatible server with a fixed latency, against the bound
 * requests × latency / concurrency (what a search would take if the model were busy with `concurrency` calls at every
 * moment). The demo config (retail, 8 rounds × 3 proposals, operators proposer, final held-out and independent
 * evaluations) with `task_model: openai:bench`, run by the real CLI in a child process so the server and hsearch do
 * not share an event loop. The server plays an agent that reads twice (the first tool offered) and then answers in
 * text, so every episode makes several requests.
 *
 *   npx tsx bench/search-wall.ts [--latency-ms 200] [--concurrency 32] [--rounds 8] [--profile DIR]
 *
 * `--profile DIR` writes a V8 CPU profile of the hsearch process there (open it in Chrome DevTools).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../src/core/paths";
import { SOURCE_CLI } from "../test/helpers/cli";
import { openaiCompletion, startFakeOpenAIServer } from "../test/helpers/fake-openai-server";

const { values } = parseArgs({
  options: {
    "latency-ms": { type: "string", default: "200" },
    concurrency: { type: "string", default: "32" },
    rounds: { type: "string", default: "8" },
    profile: { type: "string" },
  },
});
const latencyMs = Number(values["latency-ms"]);
const concurrency = Number(values.concurrency);

interface ChatBody {
  messages?: Array<{ role: string; content?: unknown }>;
  tools?: Array<{ function?: { name?: string } }>;
}

let requests = 0;
let inFlight = 0;
let busyMs = 0; // ∑ over time of min(inFlight, concurrency): how full the slots were
let lastChange = performance.now();
let firstRequestAt = 0;
let lastAnswerAt = 0;
const account = (delta: number) => {
  const now = performance.now();
  busyMs += Math.min(inFlight, concurrency) * (now - lastChange);
  lastChange = now;
  inFlight += delta;
};
// hsearch's time per step: from the answer to an episode's request to the episode's next request. The next request
// repeats the conversation so far, so a hash of its messages minus the newest ones finds the answered one.
const answeredAt = new Map<string, number>();
const stepGapsMs: number[] = [];
const hashOf = (messages: unknown[]) => createHash("sha256").update(JSON.stringify(messages)).digest("hex");
const server = await startFakeOpenAIServer(async (request) => {
  requests++;
  const arrived = performance.now();
  if (firstRequestAt === 0) firstRequestAt = arrived;
  account(1);
  const body = request.body as ChatBody;
  const messages = body.messages ?? [];
  for (let newest = 1; newest <= 3 && newest < messages.length; newest++) {
    const key = hashOf(messages.slice(0, messages.length - newest));
    const at = answeredAt.get(key);
    if (at === undefined) continue;
    stepGapsMs.push(arrived - at);
    answeredAt.delete(key);
    break;
  }
  const turns = (body.messages ?? []).filter((m) => m.role === "assistant").length;
  const tool = body.tools?.[0]?.function?.name;
  const reply =
    turns < 2 && tool
      ? openaiCompletion({ toolCalls: [{ name: tool, arguments: {} }] })
      : openaiCompletion({ content: "I cannot do more here; please contact support." });
  await new Promise((resolve) => setTimeout(resolve, latencyMs));
  account(-1);
  lastAnswerAt = performance.now();
  // Keyed with the assistant reply the client will append, as it will appear in the next request.
  answeredAt.set(hashOf(messages), lastAnswerAt);
  return reply;
});
// The recorded bodies are not needed and would only grow.
setInterval(() => server.requests.splice(0), 1000).unref();

const work = mkdtempSync(join(tmpdir(), "hsearch-search-wall-"));
const config = join(work, "demo-openai.yaml");
writeFileSync(
  config,
  readFileSync(join(PACKAGE_ROOT, "search-configs", "demo.yaml"), "utf8")
    .replace("name: demo", "name: demo-openai")
    .replace("task_model: sim:default", "task_model: openai:bench")
    .replace("concurrency: 8", `concurrency: ${concurrency}`)
    .replace("rounds: 8", `rounds: ${values.rounds}`),
);

const started = performance.now();
const child = spawn(
  process.execPath,
  [
    ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : []),
    ...SOURCE_CLI,
    "run",
    config,
    "--out",
    join(work, "run"),
    "--json",
  ],
  {
    cwd: PACKAGE_ROOT,
    env: {
      ...process.env,
      OPENAI_API_KEY: "sk-bench",
      OPENAI_BASE_URL: server.baseURL,
    },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let stdout = "";
child.stdout.on("data", (chunk) => {
  stdout += chunk;
});
const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
const wallMs = performance.now() - started;
account(0);
await server.close();
if (code !== 0) {
  console.error(`hsearch run exited ${code}`);
  process.exit(1);
}
const status = JSON.parse(stdout) as { usage?: { rollouts?: number } };
const boundMs = (requests * latencyMs) / concurrency;
console.log(
  `search: ${requests} requests, ${status.usage?.rollouts ?? "?"} rollouts, latency ${latencyMs} ms, concurrency ${concurrency}`,
);
const searchMs = lastAnswerAt - firstRequestAt;
stepGapsMs.sort((a, b) => a - b);
const quantile = (q: number) =>
  stepGapsMs[Math.min(stepGapsMs.length - 1, Math.floor(q * stepGapsMs.length))] ?? NaN;
console.log(
  `hsearch per step (answer → the episode's next request, ${stepGapsMs.length} steps): median ${quantile(0.5).toFixed(1)} ms, p95 ${quantile(0.95).toFixed(1)} ms`,
);
console.log(
  `first to last request ${(searchMs / 1000).toFixed(1)} s: ${(searchMs / boundMs).toFixed(2)} × the bound (start-up and task loading before, final writes after)`,
);
console.log(
  `wall ${(wallMs / 1000).toFixed(1)} s, bound ${(boundMs / 1000).toFixed(1)} s: ${(wallMs / boundMs).toFixed(2)} × the bound; slots busy ${((100 * busyMs) / (wallMs * concurrency)).toFixed(0)}% of the wall`,
);
