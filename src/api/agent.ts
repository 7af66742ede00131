/**
 * `hsearch agent`: a harness's episode in the shell it is started in — a benchmark task's container, a developer's
 * machine. The same engine as `eval` (harness/rollout.ts `runAgentEpisode`) with the terminal environment's local
 * shell as its environment (envs/terminal/local-shell.ts): the harness's system prompt, protocols, playbook and
 * turns; bash, read_file and write_file in the work directory; the certified deferral written as `infeasible.md`
 * there. No verifier runs: the benchmark's runner verifies the directory afterwards. The trajectory is written as
 * ATIF (`trajectory.json`, what Harbor reads) and in hsearch's own format (`hsearch-trajectory.json`).
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { badInput, packageVersion } from "../core";
import type { AgentTask } from "../domain";
import { createLocalShellEnv, DEFERRAL_FILE } from "../envs";
import type { EndReason, Harness, Trajectory } from "../harness";
import { runAgentEpisode } from "../harness";
import { type AtifTrajectory, toAtif } from "../interop";
import type { ChatModel } from "../models/types";

/** How an agent run ended, as its exit status says it (docs/DESIGN.md §8 `hsearch agent`). */
export type AgentStatus = "done" | "deferred" | "out_of_steps" | "model_error";

export const AGENT_EXIT_CODES: Readonly<Record<AgentStatus, number>> = {
  done: 0,
  deferred: 3,
  out_of_steps: 4,
  model_error: 5,
};

export interface AgentInput {
  harness: Harness;
  model: ChatModel;
  instruction: string;
  /** The directory the agent works in (the task's workspace); it must exist. */
  workdir: string;
  /** Overrides the harness's `agent.max_steps`. */
  maxSteps?: number;
  /** Where the trajectories are written; none when absent. */
  out?: string;
  /** The episode's seed (the simulator and a seeded provider read it); default 0. */
  seed?: number;
  /** Wall time of one tool call; default the terminal environment's (60 s). */
  commandTimeoutMs?: number;
  /**
   * Whether the shell has network, as the bash tool's description tells the agent (default true: a machine's
   * shell usually has; false for a task container without internet).
   */
  network?: boolean;
  /** The task id the trajectory records; default `agent`. */
  taskId?: string;
}

export interface AgentOutcome {
  status: AgentStatus;
  exitCode: number;
  trajectory: Trajectory;
  atif: AtifTrajectory;
  /** The certified deferral's reason, when the run ended with `infeasible.md` in the work directory. */
  deferral: string | null;
  /** The files written under `out`. */
  files: string[];
}

export async function runAgent(input: AgentInput): Promise<AgentOutcome> {
  if (input.instruction.trim() === "") throw badInput("the instruction is empty", { field: "instruction" });
  if (input.maxSteps !== undefined && !(Number.isInteger(input.maxSteps) && input.maxSteps > 0))
    throw badInput(`--max-steps must be a positive integer, got ${input.maxSteps}`, { field: "max-steps" });
  const harness = input.maxSteps === undefined ? input.harness : withMaxSteps(input.harness, input.maxSteps);
  const env = await createLocalShellEnv(input.workdir, {
    network: input.network ?? true,
    ...(input.commandTimeoutMs !== undefined ? { commandTimeoutMs: input.commandTimeoutMs } : {}),
  });
  let trajectory: Trajectory;
  let deferral: string | null;
  try {
    ({ trajectory } = await runAgentEpisode({
      harness,
      task: agentTask(input.taskId ?? "agent", input.instruction),
      env,
      model: input.model,
      seed: input.seed ?? 0,
      repeat: 0,
    }));
    const made = env.deferral();
    deferral = made && existsSync(join(env.workspace, DEFERRAL_FILE)) ? made.reason : null;
  } finally {
    await env.close();
  }
  const status = statusOf(trajectory.end.reason, deferral !== null);
  const atif = toAtif(trajectory, { agentVersion: packageVersion() });
  const files = input.out === undefined ? [] : await writeRecords(input.out, trajectory, atif);
  return { status, exitCode: AGENT_EXIT_CODES[status], trajectory, atif, deferral, files };
}

/** Pure: the status of an episode that ended so, with or without a standing certified deferral. */
export function statusOf(reason: EndReason, deferred: boolean): AgentStatus {
  if (reason === "deferred" || deferred) return "deferred";
  if (reason === "max_steps") return "out_of_steps";
  if (reason === "model_error" || reason === "context_overflow" || reason === "infra_error")
    return "model_error";
  return "done";
}

/**
 * The agent's view of a task it is only told the instruction of: a terminal task whose environment is the work
 * directory as it is, of no split of hsearch's (`independent`). Its kind is unknown here; the record says `feasible` for want
 * of another value, and no score is computed from it here.
 */
function agentTask(id: string, instruction: string): AgentTask {
  return {
    id,
    suite: "terminal",
    split: "independent",
    kind: "feasible",
    instruction,
    forbidden: {},
    env: {},
  };
}

function withMaxSteps(harness: Harness, maxSteps: number): Harness {
  const agent = { ...harness.config.agent, max_steps: maxSteps };
  return { ...harness, config: { ...harness.config, agent } };
}

async function writeRecords(out: string, trajectory: Trajectory, atif: AtifTrajectory): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const atifFile = join(out, "trajectory.json");
  const ownFile = join(out, "hsearch-trajectory.json");
  await writeFile(atifFile, `${JSON.stringify(atif, null, 2)}\n`);
  await writeFile(ownFile, `${JSON.stringify(trajectory, null, 2)}\n`);
  return [atifFile, ownFile];
}
