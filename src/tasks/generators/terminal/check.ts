/**
 * Proofs about terminal tasks, run in the real sandbox: a feasible task's reference solution scores 1 and an agent
 * that does nothing scores 0; a blocked variant is really blocked (its counterpart's solution fails there or makes
 * a forbidden change), its verifier passes an agent that changes nothing and fails one that made the forbidden
 * change, its reads change nothing forbidden, and its evidence shows where the cues say. Each check returns null
 * when it holds, otherwise the reason it does not.
 */
import { HsearchError, mapPool } from "../../../core";
import type { TerminalTask } from "../../../domain";
import type { ForbiddenChange } from "../../../envs";
import {
  createTerminalEnv,
  imageSourceChosen,
  runVerifier,
  type TerminalEnv,
  terminalEnvOptions,
  verifierTimeoutMs,
} from "../../../envs";

/**
 * The task's environment for the length of `use`, closed afterwards whatever happens: from the image an episode
 * of it would run in (the prebuilt one or its Dockerfile's, as the user chose).
 */
export async function withEnv<T>(task: TerminalTask, use: (env: TerminalEnv) => Promise<T>): Promise<T> {
  const options = terminalEnvOptions(task.env, false, imageSourceChosen());
  const env = await createTerminalEnv({ ...options, forbidden: task.forbidden });
  try {
    return await use(env);
  } finally {
    await env.close();
  }
}

export interface ScriptOutcome {
  ok: boolean;
  output: string;
  /** Forbidden paths (of the task the env was made for) the script created, changed or deleted. */
  forbidden: string[];
  /** The same changes as records (a directory's path ends in "/"). */
  changes: ForbiddenChange[];
  reward: number;
  /** The rewards of `alsoVerify`'s verifiers, run in order after the task's own. */
  alsoRewards: number[];
}

export interface ScriptOptions {
  /** Called in the initial state, before the script runs (to look at the workspace the setup left). */
  before?: (env: TerminalEnv) => Promise<void>;
  /** Tasks whose verifiers also judge the state the script left (after the task's own, which must not write). */
  alsoVerify?: readonly TerminalTask[];
  /** Called after the script, before the verifier (to read what the script left outside the workspace). */
  after?: (env: TerminalEnv) => Promise<void>;
}

/** Run `script` as the agent's one bash call in `task`'s initial state, then the task's verifier. */
export function runScriptIn(
  task: TerminalTask,
  script: string,
  options: ScriptOptions = {},
): Promise<ScriptOutcome> {
  return withEnv(task, async (env) => {
    await options.before?.(env);
    const result = await env.call("bash", { command: script }, { step: 1, author: "agent" });
    const changes = [...env.forbiddenChanges()];
    const forbidden = changes.map((change) => `${change.change} ${change.path}`);
    await options.after?.(env);
    const verdict = await runVerifier(env, verifyScript(task), verifierOptions(task));
    const alsoRewards: number[] = [];
    for (const other of options.alsoVerify ?? [])
      alsoRewards.push((await runVerifier(env, verifyScript(other), verifierOptions(other))).reward);
    return { ok: result.ok, output: result.output, forbidden, changes, reward: verdict.reward, alsoRewards };
  });
}

/** The verifier's reward when the agent did nothing at all (`before` looks at the initial state first). */
export function idleReward(task: TerminalTask, before?: ScriptOptions["before"]): Promise<number> {
  return withEnv(task, async (env) => {
    await before?.(env);
    return (await runVerifier(env, verifyScript(task), verifierOptions(task))).reward;
  });
}

function verifierOptions(task: TerminalTask): { timeoutMs?: number } {
  const timeoutMs = verifierTimeoutMs(task.env);
  return timeoutMs === undefined ? {} : { timeoutMs };
}

function verifyScript(task: TerminalTask): string {
  return task.verify.script;
}

function solutionOf(task: TerminalTask): string {
  const { solution } = task.reference;
  if (solution === undefined) throw new HsearchError("bad_input", `${task.id} has no reference solution`);
  return solution;
}

export async function checkFeasibleTerminal(task: TerminalTask): Promise<string | null> {
  if (task.kind !== "feasible") return `${task.id} is not feasible`;
  const solved = await runScriptIn(task, solutionOf(task));
  if (!solved.ok) return `${task.id}: the reference solution fails: ${solved.output}`;
  if (solved.reward !== 1) return `${task.id}: the reference solution scores ${solved.reward}`;
  const idle = await idleReward(task);
  if (idle !== 0) return `${task.id}: an agent that does nothing scores ${idle}`;
  return null;
}

/**
 * What the counterpart's solution must do in a blocked variant beyond the default (it fails, or makes a forbidden
 * change the variant's verifier catches): `forbiddenChange`, commit the forbidden effect (a trap or an ambiguous
 * request the solution carries out blindly); `counterpartFails`, no longer pass the counterpart's own verifier (a
 * prerequisite is gone), which then replaces the default's "it fails" part.
 */
export interface BlindRules {
  forbiddenChange?: boolean;
  counterpartFails?: boolean;
}

export async function checkBlockedTerminal(
  variant: TerminalTask,
  counterpart: TerminalTask,
  rules: BlindRules = {},
): Promise<string | null> {
  if (variant.kind !== "blocked" || !variant.blocker || !variant.sim) return `${variant.id} is not blocked`;
  if (variant.source !== counterpart.id) return `${variant.id}: its source is not ${counterpart.id}`;
  if ((await idleReward(variant)) !== 1)
    return `${variant.id}: an agent that changes nothing does not score 1`;
  const evidence = await checkEvidence(variant);
  if (evidence !== null) return evidence;
  const deferred = await runScriptIn(variant, solutionOf(variant));
  if (deferred.forbidden.length > 0 || deferred.reward !== 1)
    return `${variant.id}: the deferral reference changes ${deferred.forbidden.join(", ") || "nothing"} and scores ${deferred.reward}`;
  const blind = await runScriptIn(variant, solutionOf(counterpart), {
    alsoVerify: rules.counterpartFails ? [counterpart] : [],
  });
  if (rules.counterpartFails && blind.alsoRewards[0] === 1)
    return `${variant.id}: the counterpart's solution still passes its own verifier here`;
  if (rules.forbiddenChange && blind.forbidden.length === 0)
    return `${variant.id}: the counterpart's solution makes no forbidden change here`;
  if (!rules.counterpartFails && blind.ok && blind.forbidden.length === 0)
    return `${variant.id}: the counterpart's solution still works here without a forbidden change`;
  if (blind.forbidden.length > 0 && blind.reward !== 0)
    return `${variant.id}: the verifier misses the forbidden change ${blind.forbidden.join(", ")}`;
  return null;
}

/** The reads run as the oracle runs them: nothing forbidden changes, and the evidence text is where the cues say. */
async function checkEvidence(variant: TerminalTask): Promise<string | null> {
  const cues = variant.sim;
  const after = cues?.evidence_after ?? 0;
  const text = cues?.evidence_text ?? "";
  if (text === "") return `${variant.id}: no evidence text`;
  if (after === 0)
    return variant.instruction.includes(text)
      ? null
      : `${variant.id}: the evidence text is not in the instruction`;
  const reads = cues?.steps.slice(0, after) ?? [];
  return withEnv(variant, async (env) => {
    let seen = "";
    for (const [index, step] of reads.entries()) {
      const result = await env.call(step.name, step.arguments, { step: index + 1, author: "agent" });
      seen = result.output;
    }
    if (env.forbiddenChanges().length > 0) return `${variant.id}: the reads change a forbidden path`;
    if (!seen.toLowerCase().includes(text.toLowerCase()))
      return `${variant.id}: read ${after} does not show '${text}'; it shows: ${seen.slice(0, 400)}`;
    return null;
  });
}

/** Every check over a suite, `concurrency` sandboxes at a time; the problems found (empty when all hold). */
export async function checkTerminalTasks(tasks: readonly TerminalTask[], concurrency = 2): Promise<string[]> {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const problems = await mapPool(tasks, concurrency, async (task) => {
    if (task.kind === "feasible") return checkFeasibleTerminal(task);
    const counterpart = byId.get(task.source ?? "");
    return counterpart
      ? checkBlockedTerminal(task, counterpart)
      : `${task.id}: no counterpart ${task.source}`;
  });
  return problems.filter((problem): problem is string => problem !== null);
}
