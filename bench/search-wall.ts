/**
 * Wall time of a whole search against a local OpenAI-compatible server with a fixed latency, against the bound
 * requests × latency / concurrency (what a search would take if the model were busy with `concurrency` calls at every
 * moment). The demo config (retail, 8 rounds × 3 proposals, operators proposer, final held-out and independent
 * evaluations) with `task_model: openai:bench`, run by the real CLI in a child process so the server and hsearch do
 * not share an event loop. The server plays an agent that reads twice (the first tool offered) and then answers in
 * text, so every episode makes several requests; with `--customer auto` (the default, as for any real task model)
 * it also plays the retail customer, with `scripted` the customer is hsearch's scripted one (shorter episodes, so
 * hsearch's work per rollout weighs more).
 *
 * hsearch's time per step is measured from the answer to a request to the next request of the same episode: every
 * answer carries a reference (the tool call's id, or "(ref N)" in a text), and the next request quotes it (a tool
 * result names the call; the customer's and the agent's next messages are the other side's text).
 *
 * `--workers N`: the run is `run --workers` on a private redis-server with N `hsearch worker` processes on this machine
 * sharing the `concurrency` (each `--concurrency` concurrency / N, rounded up) and one `--cache` file; their CPU time
 * is reported apart.
 *
 *   npx tsx bench/search-wall.ts [--latency-ms 200] [--concurrency 32] [--rounds 8] [--customer auto|scripted]
 *                                [--built] [--profile DIR] [--workers N]
 *
 * `--built` runs the compiled command (`npm run build` first) as a user would, rather than the sources through tsx,
 * whose start-up compiles every module. `--profile DIR` writes a V8 CPU profile of the hsearch process there (open it in Chrome DevTools, or summarise it
 * with `npx tsx bench/profile-summary.ts FILE`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../src/core/paths";
import { SOURCE_CLI } from "../test/helpers/cli";
import { openaiCompletion, startFakeOpenAIServer } from "../test/helpers/fake-openai-server";
import { startRedis, type TestRedis } from "../test/helpers/redis-server";
import { startWorkerProcess, type WorkerProcess } from "../test/helpers/worker-process";

const { values } = parseArgs({
  options: {
    "latency-ms": { type: "string", default: "200" },
    concurrency: { type: "string", default: "32" },
    rounds: { type: "string", default: "8" },
    customer: { type: "string", default: "auto" },
    built: { type: "boolean", default: false },
    profile: { type: "string" },
    workers: { type: "string", default: "0" },
  },
});
const latencyMs = Number(values["latency-ms"]);
const concurrency = Number(values.concurrency);

interface ChatBody {
  messages?: Array<{
    role: string;
    content?: unknown;
    tool_call_id?: string;
    tool_calls?: Array<{ id?: string }>;
  }>;
  tools?: Array<{ function?: { name?: string } }>;
}

let requests = 0;
let inFlight = 0;
let busyMs = 0; // ∑ over time of min(inFlight, concurrency): how full the slots were
let lastChange = performance.now();
let firstRequestAt = 0;
let lastAnswerAt = 0;
// Stalls: stretches with no request in flight between the first and the last (a round's end, proposing, acceptance).
const stalls: Array<{ at: number; ms: number }> = [];
const account = (delta: number) => {
  const now = performance.now();
  busyMs += Math.min(inFlight, concurrency) * (now - lastChange);
  if (inFlight === 0 && delta > 0 && firstRequestAt > 0 && lastChange > firstRequestAt)
    stalls.push({ at: lastChange, ms: now - lastChange });
  lastChange = now;
  inFlight += delta;
};
// hsearch's time per step: from the answer to an episode's request to the episode's next request, found by the
// reference the next request quotes (see the header).
let nextReference = 0;
const answeredAt = new Map<number, number>();
const stepGapsMs: number[] = [];
// The newest reference among the request's last messages: a tool result names its call, the customer's and the
// agent's messages quote the other side's text, and after the scripted customer the agent's own answer is next-to-last.
const quotedReference = (body: ChatBody): number | undefined => {
  for (const message of (body.messages ?? []).slice(-3).reverse()) {
    const texts = [
      message.tool_call_id,
      message.content,
      ...(message.tool_calls ?? []).map((call) => call.id),
    ];
    for (const text of texts) {
      const match = typeof text === "string" ? /(?:call_r|\(ref )(\d+)/.exec(text) : null;
      if (match) return Number(match[1]);
    }
  }
  return undefined;
};
let atFirstRequest = () => {};
const server = await startFakeOpenAIServer(async (request) => {
  requests++;
  const arrived = performance.now();
  account(1);
  if (firstRequestAt === 0) {
    firstRequestAt = arrived;
    atFirstRequest();
  }
  const body = request.body as ChatBody;
  const quoted = quotedReference(body);
  const answered = quoted === undefined ? undefined : answeredAt.get(quoted);
  if (answered !== undefined && quoted !== undefined) {
    stepGapsMs.push(arrived - answered);
    answeredAt.delete(quoted);
  }
  const reference = nextReference++;
  const turns = (body.messages ?? []).filter((m) => m.role === "assistant").length;
  const tool = body.tools?.[0]?.function?.name;
  const reply =
    turns < 2 && tool
      ? openaiCompletion({ toolCalls: [{ id: `call_r${reference}`, name: tool, arguments: {} }] })
      : openaiCompletion({ content: `I cannot do more here; please contact support. (ref ${reference})` });
  await new Promise((resolve) => setTimeout(resolve, latencyMs));
  account(-1);
  lastAnswerAt = performance.now();
  answeredAt.set(reference, lastAnswerAt);
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
    .replace("rounds: 8", `rounds: ${values.rounds}`)
    .concat(`customer: ${values.customer}\n`),
);

const cli = values.built ? [join(PACKAGE_ROOT, "dist", "cli", "bin.js")] : SOURCE_CLI;
const env = { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: server.baseURL };
// Workers start (and wait in the queue) before the clock does: a worker fleet is up before a run is started.
const workerCount = Number(values.workers);
let redis: TestRedis | undefined;
const workers: WorkerProcess[] = [];
if (workerCount > 0) {
  redis = await startRedis();
  for (let i = 0; i < workerCount; i++)
    workers.push(
      await startWorkerProcess({
        redisUrl: redis.url,
        queue: "bench",
        cwd: PACKAGE_ROOT,
        env,
        cli,
        // One request cache for the workers, as the single process has its run's.
        args: [
          "--concurrency",
          String(Math.ceil(concurrency / workerCount)),
          "--cache",
          join(work, "workers-cache.db"),
        ],
      }),
    );
}

const started = performance.now();
const child = spawn(
  process.execPath,
  [
    ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : []),
    ...cli,
    "run",
    config,
    "--out",
    join(work, "run"),
    "--json",
    ...(redis ? ["--workers", redis.url, "--queue", "bench"] : []),
  ],
  {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  },
);
// The child's CPU time (user + system, every thread), read from /proc while it runs: its last reading before the exit.
const ticksPerSecond = 100;
/** A process's user and system CPU seconds (every thread), from /proc; NaN once it has exited, or off Linux. */
const cpuOf = (pid: number | undefined): { user: number; system: number } => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
};
const totalCpu = (pid: number | undefined) => {
  const { user, system } = cpuOf(pid);
  return user + system;
};
let cpuSeconds = Number.NaN;
let userSeconds = Number.NaN;
let systemSeconds = Number.NaN;
const workerCpuAtStart = workers.map((worker) => totalCpu(worker.child.pid));
const readCpu = () => {
  const { user, system } = cpuOf(child.pid);
  if (Number.isNaN(user)) return;
  userSeconds = user;
  systemSeconds = system;
  cpuSeconds = user + system;
};
const cpuPoll = setInterval(readCpu, 250);
let cpuAtFirstRequest = Number.NaN;
atFirstRequest = () => {
  readCpu();
  cpuAtFirstRequest = cpuSeconds;
};
const loadBefore = loadavg()[0] ?? Number.NaN;
// hsearch's progress lines, stamped on arrival, to say what a stall was waiting for.
const progress: Array<{ at: number; line: string }> = [];
let partial = "";
child.stderr.on("data", (chunk) => {
  const lines = (partial + chunk).split("\n");
  partial = lines.pop() ?? "";
  for (const line of lines) {
    process.stderr.write(`${line}\n`);
    progress.push({ at: performance.now(), line });
  }
});
let stdout = "";
child.stdout.on("data", (chunk) => {
  stdout += chunk;
});
const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
const wallMs = performance.now() - started;
clearInterval(cpuPoll);
account(0);
const workerCpu = workers.map((worker, i) => totalCpu(worker.child.pid) - (workerCpuAtStart[i] ?? 0));
for (const worker of workers) worker.child.kill("SIGTERM");
await Promise.all(workers.map((worker) => worker.exit));
await redis?.stop();
await server.close();
if (code !== 0) {
  console.error(`hsearch run exited ${code}`);
  process.exit(1);
}
const status = JSON.parse(stdout) as { usage?: { rollouts?: number } };
const boundMs = (requests * latencyMs) / concurrency;
console.log(
  `search: ${requests} requests, ${status.usage?.rollouts ?? "?"} rollouts, latency ${latencyMs} ms, concurrency ${concurrency}, customer ${values.customer}${workerCount > 0 ? `, through ${workerCount} workers (${Math.ceil(concurrency / workerCount)} rollouts each)` : ""}`,
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
console.log(
  `hsearch CPU ${cpuSeconds.toFixed(1)} s (user ${userSeconds.toFixed(1)} s, system ${systemSeconds.toFixed(1)} s; ${((1000 * cpuSeconds) / requests).toFixed(2)} ms per request; ${((100 * cpuSeconds * 1000) / wallMs).toFixed(0)}% of one core over the wall; ${cpuAtFirstRequest.toFixed(1)} s of it before the first request); load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? Number.NaN).toFixed(1)} after`,
);
if (workers.length > 0)
  console.log(
    `workers' CPU during the run: ${workerCpu.map((seconds) => `${seconds.toFixed(1)} s`).join(", ")}; rollouts each ${workers.map((worker) => worker.rollouts()).join(", ")}`,
  );
const stalledMs = stalls.reduce((sum, stall) => sum + stall.ms, 0);
console.log(
  `stalls (no request in flight) between the first and the last request: ${stalls.length}, ${(stalledMs / 1000).toFixed(1)} s in all; the longest:`,
);
for (const stall of [...stalls].sort((a, b) => b.ms - a.ms).slice(0, 5)) {
  const before = progress.filter((entry) => entry.at <= stall.at).at(-1);
  console.log(
    `  ${(stall.ms / 1000).toFixed(2)} s at ${((stall.at - started) / 1000).toFixed(1)} s, after "${before?.line ?? "(start)"}"`,
  );
}
