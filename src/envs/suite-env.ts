import { HsearchError } from "../core/errors";
import type { Task } from "../domain/task";
import { createRetailEnv, type RetailEnvironment, retailPolicy, verifyRetail } from "./retail";
import type { Environment } from "./types";

/**
 * The glue between a task and its suite's environment: set up the initial state, and after the episode run the
 * native verifier. The only place outside scoring that reads a task's protected `reference` and `verify`.
 */
export const TERMINAL_POLICY = [
  "You work in a Linux shell inside a sandbox. The task's files are in the current directory (the workspace), which",
  "is the only place you can write. There is no network. Use the tools to inspect and change files; do not claim",
  "results you have not checked.",
].join(" ");

export function suitePolicy(suite: Task["suite"]): string {
  return suite === "retail" ? retailPolicy() : TERMINAL_POLICY;
}

/**
 * `readOnly` (the belief probe): the terminal workspace is mounted read-only; retail relies on the agent loop, which
 * refuses every write tool in a read-only episode.
 */
export async function createTaskEnvironment(
  task: Task,
  options: { readOnly?: boolean } = {},
): Promise<Environment> {
  if (task.suite === "retail") return createRetailEnv(task.env, { forbidden: task.forbidden });
  const { createTerminalEnv, internetAllowed, terminalEnvOptions } = await import("./terminal");
  return createTerminalEnv({
    ...terminalEnvOptions(task.env, internetAllowed()),
    forbidden: task.forbidden,
    ...(options.readOnly ? { readOnly: true } : {}),
  });
}

/** Native reward (0 or 1). `completed` is false when the episode was cut off by the step limit or an error. */
export async function verifyTask(
  task: Task,
  env: Environment,
  episode: { agentMessages: string[]; completed: boolean },
): Promise<number> {
  return (await verifyTaskWithReport(task, env, episode)).reward;
}

/** What a verifier run shows people besides the reward (terminal: the script's output, cut, and its status). */
export interface VerifierRun {
  reward: number;
  report?: {
    output: string;
    exit_code: number | null;
    timed_out: boolean;
    problem: string | null;
    duration_ms: number;
  };
}

/** The native reward with the verifier's own report: kept in the trajectory for the viewer, never for a prompt. */
export async function verifyTaskWithReport(
  task: Task,
  env: Environment,
  episode: { agentMessages: string[]; completed: boolean },
): Promise<VerifierRun> {
  if (task.suite === "retail") {
    const verdict = verifyRetail({
      reference: task.reference,
      spec: task.env,
      env: env as RetailEnvironment,
      agentMessages: episode.agentMessages,
      completed: episode.completed,
    });
    return { reward: verdict.reward };
  }
  if (!episode.completed) return { reward: 0 };
  const { runVerifier, TerminalEnv, verifierTimeoutMs } = await import("./terminal");
  if (!(env instanceof TerminalEnv))
    throw new HsearchError("internal", `task ${task.id}: a terminal task needs the terminal environment`);
  const timeoutMs = verifierTimeoutMs(task.env);
  const result = await runVerifier(env, task.verify.script, timeoutMs === undefined ? {} : { timeoutMs });
  if (result.reward !== 0 && result.reward !== 1)
    throw new HsearchError("internal", `verifier of ${task.id} returned reward ${result.reward}`);
  return {
    reward: result.reward,
    report: {
      output: result.output,
      exit_code: result.exitCode,
      timed_out: result.timedOut,
      problem: result.problem,
      duration_ms: Math.round(result.durationMs),
    },
  };
}

/**
 * Why a task failed when it asked for internet (task.toml `allow_internet = true`) that the user did not grant and
 * its output shows a host it could not reach: the message of that task's infrastructure error, or null.
 */
export async function unmetInternetNeed(task: Task, outputs: readonly string[]): Promise<string | null> {
  if (task.suite !== "terminal" || task.env.allow_internet !== true) return null;
  const { internetAllowed, networkFailureIn, noNetworkMessage } = await import("./terminal");
  if (internetAllowed()) return null;
  for (const output of outputs) {
    const evidence = networkFailureIn(output);
    if (evidence !== null) return noNetworkMessage(evidence);
  }
  return null;
}
