// Measures the Docker path on a directory of imported Harbor tasks (`tasks import-harbor --sandbox docker`): for each
// task, one at a time, whether its image builds, whether its own solution passes its own verifier (what `hsearch
// eval --model oracle` does: the solution as one bash call, then the verifier), and whether doing nothing fails it,
// with the end of each output so the failures can be counted by reason. Results go to a JSONL file, one line per
// task, and a re-run skips the tasks already there; `--summary` prints the counts.
//
//   npx tsx scripts/measure-harbor-docker.ts TASKS_DIR OUT.jsonl [--solve-cap SEC] [--verify-cap SEC] [--only ID,…]
//     [--build-limit SEC]
//
// --build-limit raises each task's own build limit (`[environment] build_timeout_sec`, default 600 s) to at least
// SEC for this measurement, for a shared machine whose load stretches builds; the figures must say it was raised.
//   npx tsx scripts/measure-harbor-docker.ts --summary OUT.jsonl
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { isTerminalTask, type Task, type TerminalEnvSpec, type TerminalReference } from "../src/domain/task";
import { createTaskEnvironment } from "../src/envs/suite-env";
import { runVerifier, type TerminalEnv, verifierTimeoutMs } from "../src/envs/terminal";
import { loadTaskDir } from "../src/tasks/loading/load";

interface Measured {
  id: string;
  build: "ok" | "failed";
  buildSeconds: number;
  buildError?: string;
  solve?: { exitCode: number | null; timedOut: boolean; seconds: number; tail: string };
  oracle?: number;
  verifierTail?: string;
  verifierProblem?: string | null;
  noop?: number;
}

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const tail = (text: string, n = 1500) => (text.length > n ? text.slice(-n) : text);

if (args[0] === "--summary") summarize(args[1] as string);
else await measure(args[0] as string, args[1] as string);

async function measure(dir: string, out: string): Promise<void> {
  const solveCap = Number(flag("--solve-cap") ?? 1800) * 1000;
  const verifyCap = Number(flag("--verify-cap") ?? 900) * 1000;
  const only = flag("--only")?.split(",");
  const buildLimit = flag("--build-limit");
  const buildSec = buildLimit === undefined ? undefined : Number(buildLimit);
  if (buildSec !== undefined && !(buildSec > 0))
    throw new Error(`--build-limit ${buildLimit}: not a positive number`);
  const done = new Set(existsSync(out) ? lines(out).map((line) => line.id) : []);
  const tasks = loadTaskDir(dir)
    .map((loaded) => loaded.task)
    .filter((task) => !done.has(task.id) && (!only || only.includes(task.id)))
    .map((task) => (buildSec === undefined ? task : withBuildLimit(task, buildSec)));
  for (const task of tasks) {
    const measured: Measured = { id: task.id, build: "ok", buildSeconds: 0 };
    const started = performance.now();
    let env: TerminalEnv | undefined;
    try {
      env = (await createTaskEnvironment(task)) as TerminalEnv;
    } catch (error) {
      measured.build = "failed";
      measured.buildError = tail(String((error as Error).message), 4000);
    }
    measured.buildSeconds = Math.round((performance.now() - started) / 1000);
    if (env) {
      try {
        const spec = task.env as TerminalEnvSpec;
        const solution = (task.reference as TerminalReference).solution;
        const limit = Math.min(solveCap, (spec.timeouts?.command_sec ?? 60) * 1000);
        const solveStarted = performance.now();
        const run = await env.runCommand(solution ?? "exit 3", { timeoutMs: limit, mergeOutput: true });
        measured.solve = {
          exitCode: run.exitCode,
          timedOut: run.timedOut,
          seconds: Math.round((performance.now() - solveStarted) / 1000),
          tail: tail(run.output),
        };
        const verdict = await runVerifier(env, taskScript(task), {
          timeoutMs: Math.min(verifyCap, verifierTimeoutMs(spec) ?? verifyCap),
        });
        measured.oracle = verdict.reward;
        measured.verifierTail = tail(verdict.output);
        measured.verifierProblem = verdict.problem;
      } finally {
        await env.close();
      }
      const idle = (await createTaskEnvironment(task)) as TerminalEnv;
      try {
        const verdict = await runVerifier(idle, taskScript(task), {
          timeoutMs: Math.min(verifyCap, verifierTimeoutMs(task.env as TerminalEnvSpec) ?? verifyCap),
        });
        measured.noop = verdict.reward;
      } finally {
        await idle.close();
      }
    }
    appendFileSync(out, `${JSON.stringify(measured)}\n`);
    console.log(
      `${task.id}: build ${measured.build} (${measured.buildSeconds} s)` +
        (measured.oracle === undefined ? "" : `, oracle ${measured.oracle}, no-op ${measured.noop}`),
    );
  }
}

/** The task with its own build limit raised to at least `seconds`. */
function withBuildLimit(task: Task, seconds: number): Task {
  const spec = task.env as TerminalEnvSpec;
  const setup = Math.max(spec.timeouts?.setup_sec ?? 600, seconds);
  return { ...task, env: { ...spec, timeouts: { ...spec.timeouts, setup_sec: setup } } } as Task;
}

function taskScript(task: Task): string {
  if (!isTerminalTask(task)) throw new Error(`${task.id} is not a terminal task`);
  return task.verify.script;
}

function lines(file: string): Measured[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Measured);
}

/** Why a build failed, from the end of its output. */
function buildReason(error: string): string {
  if (/did not finish in/.test(error)) return "build timed out";
  if (/layer of the tests' and solution's packages/.test(error)) return "run-time packages layer failed";
  if (
    /invalid from flag value|COPY --from=\S+\/\S+:\S+/.test(error) &&
    /no such host|dial tcp|pull access denied/.test(error)
  )
    return "a registry image in COPY --from";
  if (
    /pip|pypi|No matching distribution|uv (pip|sync)|uvx/i.test(error) &&
    /(Could not find a version|No matching distribution|Failed to establish|Network is unreachable|Temporary failure in name resolution|Name or service not known|dns error|error sending request|Could not fetch)/i.test(
      error,
    )
  )
    return "pip/uv: PyPI unreachable";
  if (
    /Unable to locate package|has no installation candidate|Version '.*' for '.*' was not found|unmet dependencies/i.test(
      error,
    )
  )
    return "apt: package or version not in the stand-in's Debian";
  // A fetch that failed to resolve is the cause even where a later step then misses the file it would have made.
  if (/Could not resolve host|unable to access 'https?:|Temporary failure resolving/i.test(error))
    return "fetch from the internet (not Debian's archive)";
  if (/COPY failed|ADD failed|no such file or directory/i.test(error) && /COPY|ADD/.test(error))
    return "COPY of a file absent from the snapshot";
  if (
    /curl|wget|git clone|Could not resolve host|Temporary failure resolving|github\.com|Failed to connect/i.test(
      error,
    )
  )
    return "fetch from the internet (not Debian's archive)";
  return "other";
}

function summarize(file: string): void {
  const all = lines(file);
  const count = (values: string[]) => {
    const counts = new Map<string, number>();
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  };
  const built = all.filter((one) => one.build === "ok");
  console.log(`tasks ${all.length}; images built ${built.length}; build failed ${all.length - built.length}`);
  for (const [reason, n] of count(
    all.filter((one) => one.build === "failed").map((one) => buildReason(one.buildError ?? "")),
  ))
    console.log(`  build failed: ${reason} ${n}`);
  const passed = built.filter((one) => one.oracle === 1);
  console.log(
    `oracle passes ${passed.length} of ${built.length} built; no-op fails ${built.filter((one) => one.noop === 0).length} of ${built.length}`,
  );
  console.log(`oracle passes and no-op fails: ${passed.filter((one) => one.noop === 0).length}`);
  for (const one of all)
    console.log(
      `${one.id}\t${one.build}\t${one.buildSeconds}s\toracle=${one.oracle ?? "-"}\tnoop=${one.noop ?? "-"}\t${one.build === "failed" ? buildReason(one.buildError ?? "") : ""}`,
    );
}
