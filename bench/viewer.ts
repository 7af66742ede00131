/**
 * How fast `hsearch view` serves the demo run (issue 23): the median time to answer the index page (the report) and
 * a candidate page (the selected harness's, or while running the seed's), on a finished run and while a run is
 * running. The viewer runs in this process; the run it follows is the real CLI in a child process (`hsearch run
 * --out DIR`, the demo config), so the two do not share an event loop. Times are wall time of one GET from sending
 * the request to the last byte, one request at a time.
 *
 *   npx tsx bench/viewer.ts [--run DIR] [--samples 15] [--no-running]
 *
 * On the finished run it measures twice: as served (a page already rendered from the same snapshot of the run is
 * served again), and with that page cache off, each request rendering the page from the viewer's in-memory model
 * (the cost of a page after the run changed). "first" is the first request, which reads the run into memory.
 *
 * `--run DIR` measures an existing finished run instead of making a fresh demo run in a temporary directory;
 * `--no-running` leaves out the measurement while a run is running (it starts another demo run).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PACKAGE_ROOT } from "../src/core/paths";
import { startViewer } from "../src/report/viewer/server";
import { openRunStore } from "../src/store";
import { runStatus } from "../src/store/run-status";
import { SOURCE_CLI } from "../test/helpers/cli";

const { values } = parseArgs({
  options: {
    run: { type: "string" },
    samples: { type: "string", default: "15" },
    "no-running": { type: "boolean", default: false },
  },
});
const SAMPLES = Number(values.samples);

function get(
  port: number,
  path: string,
  cookie: string,
): Promise<{ ms: number; status: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { cookie } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function fmt(label: string, times: readonly number[], first?: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] ?? Number.NaN;
  return `${label.padEnd(34)} median ${median(times).toFixed(1).padStart(8)} ms  p90 ${p90.toFixed(1).padStart(8)} ms  n ${String(times.length).padStart(3)}${first === undefined ? "" : `  first ${first.toFixed(1)} ms`}`;
}

/** `hsearch run --out DIR` (the demo config) as a child process; resolves when it exits. */
function startRun(out: string): { done: Promise<number | null> } {
  const child = spawn(process.execPath, [...SOURCE_CLI, "run", "--out", out], {
    cwd: PACKAGE_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return {
    done: new Promise((resolve) =>
      child.on("exit", (code) => {
        if (code !== 0) console.error(`hsearch run exited ${code}: ${stderr.slice(-2000)}`);
        resolve(code);
      }),
    ),
  };
}

function selectedCommit(runDir: string): string {
  const store = openRunStore(runDir, { readonly: true });
  try {
    const status = runStatus(store);
    const commit = (status.selected ?? status.incumbent)?.commit;
    if (!commit) throw new Error(`${runDir} has no selected harness`);
    return commit;
  } finally {
    store.close();
  }
}

/** `pageCache` false: every request renders the page again from the viewer's model (what a change costs). */
async function finished(runDir: string, pageCache: boolean): Promise<void> {
  const viewer = await startViewer({ runDir, port: 0, pageCache });
  const how = pageCache ? "finished run" : "finished, no page cache";
  const cookie = `hsearch_view_${viewer.port}=${viewer.token}`;
  try {
    const candidate = `/candidates/${selectedCommit(runDir)}`;
    for (const [label, path] of [
      [`index (${how})`, "/"],
      [`candidate page (${how})`, candidate],
    ] as const) {
      const first = await get(viewer.port, path, cookie);
      if (first.status !== 200) throw new Error(`${path}: ${first.status} ${first.body.slice(0, 200)}`);
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) times.push((await get(viewer.port, path, cookie)).ms);
      console.log(fmt(label, times, first.ms), ` ${(first.body.length / 1024).toFixed(0)} KiB`);
    }
  } finally {
    await viewer.close();
  }
}

/** Polls the index and the seed's page, one after the other, for as long as the run runs. */
async function running(work: string): Promise<void> {
  const runDir = join(work, "running");
  const run = startRun(runDir);
  let exited = false;
  void run.done.then(() => {
    exited = true;
  });
  const viewer = await startViewer({ runDir, port: 0 });
  const cookie = `hsearch_view_${viewer.port}=${viewer.token}`;
  const index: number[] = [];
  const candidate: number[] = [];
  let seed: string | undefined;
  try {
    while (!exited) {
      const front = await get(viewer.port, "/", cookie);
      // Only pages of a run that is recorded and running count: not the waiting page, not the final state.
      if (front.status === 200 && front.body.includes('data-live="true"') && front.body.includes("rounds"))
        index.push(front.ms);
      seed ??= /<a href="\/candidates\/([0-9a-f]{40})">/.exec(front.body)?.[1];
      if (seed) {
        const page = await get(viewer.port, `/candidates/${seed}`, cookie);
        if (page.status === 200 && page.body.includes('data-live="true"')) candidate.push(page.ms);
      }
      if (!seed) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await run.done;
  } finally {
    await viewer.close();
  }
  console.log(fmt("index (running run)", index));
  console.log(fmt("candidate page (running run)", candidate));
}

const work = mkdtempSync(join(tmpdir(), "hsearch-bench-viewer-"));
try {
  let runDir = values.run;
  if (runDir === undefined) {
    runDir = join(work, "demo");
    const started = performance.now();
    const code = await startRun(runDir).done;
    if (code !== 0 || !existsSync(join(runDir, "run.db"))) throw new Error("the demo run failed");
    console.log(`demo run made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log(
    `node ${process.version}, load average ${loadavg()[0]?.toFixed(1)}; ${SAMPLES} samples per page`,
  );
  await finished(runDir, true);
  await finished(runDir, false);
  if (!values["no-running"]) await running(work);
  console.log(`load average at the end ${loadavg()[0]?.toFixed(1)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
