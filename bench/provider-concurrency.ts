/**
 * Throughput of the full provider stack (usage → cache → retry → limiter → OpenAI SDK → HTTP) against a local
 * OpenAI-compatible server that answers every call after a fixed delay. With N calls at concurrency C and delay D,
 * the ideal wall time is N·D/C; the ratio to it shows the overhead of the stack (target ≤ 1.10).
 *
 * The server runs in a child process, as a real one would: in-process, its CPU time and the client's share one event
 * loop, and because the calls move in lock-step waves that CPU time adds straight onto the wall time (`--in-process`
 * shows that case).
 *
 *   npx tsx bench/provider-concurrency.ts [--calls 320] [--concurrency 32] [--delay-ms 200] [--in-process]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { closeRequestCaches } from "../src/models/cache";
import { LimiterPool } from "../src/models/limiter";
import { loadPriceTable } from "../src/models/prices";
import { createChatModel } from "../src/models/registry";
import type { ChatRequest } from "../src/models/types";
import { UsageMeter } from "../src/models/usage";
import { openaiCompletion, startFakeOpenAIServer } from "../test/helpers/fake-openai-server";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "320" },
    concurrency: { type: "string", default: "32" },
    "delay-ms": { type: "string", default: "200" },
    "in-process": { type: "boolean", default: false },
    serve: { type: "boolean", default: false },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const delayMs = Number(values["delay-ms"]);

/** The server: answers every call with a tool call after the delay; reports its peak in-flight count on stdin close. */
async function startServer(): Promise<{
  baseURL: string;
  maxInFlight: () => Promise<number>;
  stop: () => Promise<void>;
}> {
  if (values["in-process"]) {
    const server = await startFakeOpenAIServer(() =>
      openaiCompletion({ toolCalls: [{ name: "get_order", arguments: { id: "#7" } }], delayMs }),
    );
    return {
      baseURL: server.baseURL,
      maxInFlight: async () => server.maxInFlight,
      stop: () => server.close(),
    };
  }
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--serve", "--delay-ms", String(delayMs)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = child.stdout.setEncoding("utf8");
  const nextLine = () =>
    new Promise<string>((resolve) => lines.once("data", (data) => resolve(String(data).trim())));
  const baseURL = await nextLine();
  return {
    baseURL,
    maxInFlight: async () => {
      const answer = nextLine();
      child.stdin.write("peak\n");
      return Number(await answer);
    },
    stop: async () => {
      child.kill();
    },
  };
}

if (values.serve) {
  const server = await startFakeOpenAIServer(() =>
    openaiCompletion({ toolCalls: [{ name: "get_order", arguments: { id: "#7" } }], delayMs }),
  );
  process.stdout.write(`${server.baseURL}\n`);
  process.stdin.setEncoding("utf8").on("data", () => process.stdout.write(`${server.maxInFlight}\n`));
} else {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), "hsearch-bench-"));
  const meter = new UsageMeter(loadPriceTable());
  const model = createChatModel("openai:bench-model", {
    env: { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: server.baseURL },
    cachePath: join(dir, "cache.db"),
    concurrency,
    limiters: new LimiterPool(),
    meter,
  });

  const request = (seed: number): ChatRequest => ({
    messages: [
      { role: "system", content: "You are a store agent." },
      { role: "user", content: `Where is order #${seed}?` },
    ],
    tools: [
      { name: "get_order", description: "Read an order", parameters: { type: "object", properties: {} } },
    ],
    seed,
  });

  /** All calls at once (the limiter queues them); seeds from `first` on, so a fresh range misses the cache. */
  async function runAll(first: number): Promise<number> {
    const started = performance.now();
    await Promise.all(Array.from({ length: calls }, (_, index) => model.generate(request(first + index))));
    return performance.now() - started;
  }

  const idealMs = (calls * delayMs) / concurrency;
  const coldMs = await runAll(0);
  const warmMs = await runAll(calls);
  const cachedMs = await runAll(0);
  const peak = await server.maxInFlight();
  const totals = meter.totals();

  const ratio = (ms: number) => (ms / idealMs).toFixed(3);
  console.log(
    `provider-concurrency: ${calls} calls, concurrency ${concurrency}, server delay ${delayMs} ms, ` +
      `server ${values["in-process"] ? "in process" : "in a child process"}`,
  );
  console.log(`  ideal              ${idealMs.toFixed(0)} ms  (calls × delay / concurrency)`);
  console.log(`  run 1 (cold)       ${coldMs.toFixed(0)} ms  ratio ${ratio(coldMs)}  (target ≤ 1.10)`);
  console.log(`  run 2 (warm)       ${warmMs.toFixed(0)} ms  ratio ${ratio(warmMs)}`);
  console.log(`  run 3 (all cached) ${cachedMs.toFixed(0)} ms`);
  console.log(`  max in flight      ${peak}  (limit ${concurrency})`);
  console.log(`  usage              ${totals.model_calls} model calls, ${totals.cached_calls} cached`);

  closeRequestCaches();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
