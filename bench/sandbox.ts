/**
 * Sandbox overhead per command: mean wall time of `true` in the sandbox minus `bash -c true` unsandboxed, both
 * spawned from Node the same way, over RUNS runs per mechanism available here.
 *   - one-command sandbox (`hsearch sandbox run`, new namespaces per command): target ≤ 15 ms;
 *   - the episode's persistent sandbox (what agents' commands run in): target below the one-command figure.
 * Also the cost of one `bash` tool call of the terminal environment (persistent sandbox + workspace snapshot).
 *
 *   npx tsx bench/sandbox.ts [RUNS]
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableMechanisms, prepareWorkspace, runInSandbox } from "../src/envs/terminal/sandbox";
import { startSandboxSession } from "../src/envs/terminal/sandbox-backends";
import { createTerminalEnv } from "../src/envs/terminal/terminal-env";

const RUNS = Number(process.argv[2] ?? 200);
const WARMUP = 10;
const TARGET_MS = 15;

async function time(runs: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

function stats(samples: number[]): { mean: number; p50: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { mean: samples.reduce((sum, x) => sum + x, 0) / samples.length, p50: at(0.5), p95: at(0.95) };
}

function bashTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", "true"], { stdio: ["ignore", "pipe", "pipe"] });
    child.once("error", reject);
    child.once("close", () => resolve());
  });
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function main(): Promise<void> {
  const mechanisms = await availableMechanisms();
  if (mechanisms.length === 0) throw new Error("no sandbox mechanism works on this machine");
  const baseline = stats(await time(RUNS, bashTrue));
  console.log(`runs per figure: ${RUNS} (after ${WARMUP} warm-up runs)`);
  console.log(
    `unsandboxed bash -c true: mean ${fmt(baseline.mean)}, p50 ${fmt(baseline.p50)}, p95 ${fmt(baseline.p95)}`,
  );
  for (const info of mechanisms) {
    const workspace = await mkdtemp(join(tmpdir(), "hsearch-bench-ws-"));
    await prepareWorkspace(workspace, info);
    try {
      const sandboxed = stats(
        await time(RUNS, async () => {
          const result = await runInSandbox({
            workspace,
            command: "true",
            timeoutMs: 10_000,
            mechanism: info.mechanism,
          });
          if (result.exitCode !== 0) throw new Error(`sandboxed true failed: ${result.output}`);
        }),
      );
      const overhead = sandboxed.mean - baseline.mean;
      const verdict = overhead <= TARGET_MS ? "within" : "OVER";
      console.log(
        `${info.mechanism.padEnd(7)} (${info.privileged ? "root" : "user namespace"}): sandboxed true mean ` +
          `${fmt(sandboxed.mean)}, p50 ${fmt(sandboxed.p50)}, p95 ${fmt(sandboxed.p95)}; overhead ${fmt(overhead)} ` +
          `(${verdict} the ${TARGET_MS} ms target)`,
      );
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }

    const episode = await mkdtemp(join(tmpdir(), "hsearch-bench-episode-"));
    const episodeWorkspace = join(episode, "workspace");
    const episodeTmp = join(episode, "tmp");
    await mkdir(episodeWorkspace);
    await mkdir(episodeTmp);
    const user = await prepareWorkspace(episodeWorkspace, info);
    await prepareWorkspace(episodeTmp, info);
    const session = await startSandboxSession({
      info,
      dir: episode,
      workspace: episodeWorkspace,
      tmp: episodeTmp,
      user,
    });
    try {
      const persistent = stats(
        await time(RUNS, async () => {
          const result = await session.run({ command: "true", timeoutMs: 10_000 });
          if (result.exitCode !== 0) throw new Error(`persistent true failed: ${result.output}`);
        }),
      );
      console.log(
        `${info.mechanism.padEnd(7)} persistent episode sandbox: true mean ${fmt(persistent.mean)}, p50 ` +
          `${fmt(persistent.p50)}, p95 ${fmt(persistent.p95)}; overhead ${fmt(persistent.mean - baseline.mean)}`,
      );
    } finally {
      await session.close();
      await rm(episode, { recursive: true, force: true });
    }

    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`src/module-${i}.txt`] = `content ${i}\n`.repeat(50);
    const env = await createTerminalEnv({ files, mechanism: info.mechanism });
    try {
      let step = 0;
      const call = stats(
        await time(Math.min(RUNS, 100), async () => {
          step += 1;
          await env.call("bash", { command: "true" }, { step, author: "agent" });
        }),
      );
      console.log(
        `${info.mechanism.padEnd(7)} terminal env bash call (200-file workspace, incl. snapshot): mean ` +
          `${fmt(call.mean)}, p50 ${fmt(call.p50)}, p95 ${fmt(call.p95)}`,
      );
    } finally {
      await env.close();
    }
  }
}

/** The same persistent episode in a docker container, where a daemon answers. */
async function container(): Promise<void> {
  const env = await createTerminalEnv({ container: "docker" }).catch((error: Error) => error);
  if (env instanceof Error) {
    console.log(`docker container: not measured (${env.message.split("\n")[0]})`);
    return;
  }
  try {
    const call = stats(
      await time(Math.min(RUNS, 100), async () => {
        const result = await env.runCommand("true", { timeoutMs: 10_000 });
        if (result.exitCode !== 0) throw new Error(`container true failed: ${result.output}`);
      }),
    );
    console.log(
      `docker  container episode: true mean ${fmt(call.mean)}, p50 ${fmt(call.p50)}, p95 ${fmt(call.p95)}`,
    );
  } finally {
    await env.close();
  }
}

main()
  .then(container)
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
