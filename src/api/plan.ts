import { createRng, HsearchError, resolveUserPath } from "../core";
import type { Task } from "../domain";
import { suiteHasCustomer } from "../envs";
import { harnessLimitsOf, loadHarness } from "../harness";
import { customerModelSpec, isRealModelSpec, judgeModelSpec } from "../models";
import { loadConfigPlugins } from "../plugins";
import {
  type CallPlan,
  loadSearchConfig,
  type ProposerRole,
  planModelCalls,
  planSearch,
  proposerOf,
  rolloutMix,
  type SearchPlan,
  type TaskMix,
} from "../search";
import { type PilotEstimate, runPilot } from "./plan-pilot";
import { loadSearchTasks, type RunHost, resolveSeedHarness, roleSpecsOf } from "./run-setup";

/**
 * What a search config will spend (`hsearch run --plan`), before its run exists: rollouts at most and at the
 * expected stopping point (search/plan/plan.ts), model calls per role (search/plan/plan-calls.ts), and with real models and
 * `pilot` an estimate of tokens and USD from the seed harness on a few search tasks (plan-pilot.ts). Nothing is
 * written in a run directory; the pilot's answers are kept only in a shared request cache the config names.
 */
export interface PlanOptions {
  /** Relative paths (the config's) are resolved here; default process.cwd(). */
  cwd?: string;
  /** The variables providers read their keys from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Run the seed harness on this many search tasks with the real models and estimate tokens and USD from them. */
  pilot?: number;
  /** Warnings (an unpriced model) and the pilot's progress. */
  onMessage?: (text: string) => void;
}

export interface RunPlan {
  config: string;
  name: string;
  rounds: number;
  proposalsPerRound: number;
  repeats: number;
  /** The acceptance rule (src/search/acceptance): greater, paired, race or a registered one. */
  rule: string;
  tasks: { search: number; heldout: number; independent: number };
  rollouts: SearchPlan;
  calls: CallPlan;
  /**
   * Each role's model spec; null for the scripted customer, the rules judge, the operators or a proposer module, and
   * a proposer's own role (convolve's reflector, curator) left to its offline version.
   */
  models: {
    agent: string;
    customer: string | null;
    judge: string | null;
    proposer: string | null;
    reflector: string | null;
    curator: string | null;
  };
  /** What proposes when no model does: `operators`, or a proposer module's absolute path. */
  offlineProposer: string | null;
  /** Whether any role calls a real (paid) provider: only then is there spend to estimate. */
  real: boolean;
  /** The pilot's estimate; null without `pilot`. */
  estimate: PilotEstimate | null;
}

/** Pilot tasks when `pilot` is asked for without a number (two feasible/blocked pairs). */
export const DEFAULT_PILOT_TASKS = 4;

export async function planRun(configFile: string, options: PlanOptions = {}): Promise<RunPlan> {
  const cwd = options.cwd ?? process.cwd();
  const file = resolveUserPath(configFile, cwd);
  const config = loadSearchConfig(file);
  // A plug-in suite's tasks are counted like the built-in ones (and its environment is there for the pilot).
  const plugins = await loadConfigPlugins(config, file);
  const tasks = loadSearchTasks(config, cwd, file, plugins.tasks);
  const heldout = tasks.heldout();
  const independent = tasks.independent();
  const counts = { search: tasks.search.length, heldout: heldout.length, independent: independent.length };
  const rollouts = planSearch(config, counts);
  const seed = loadHarness(resolveSeedHarness(config, cwd), harnessLimitsOf(config.limits));
  const specs = roleSpecsOf(config);
  const models = {
    agent: specs.agent,
    customer: customerModelSpec(specs.customer, specs.agent) ?? null,
    judge: judgeModelSpec(specs.judge) ?? null,
    proposer: specs.proposer ?? null,
    reflector: specs.reflector ?? null,
    curator: specs.curator ?? null,
  };
  const proposer = proposerOf(config);
  const ownRoles = (proposer.roles ?? []).filter((role: ProposerRole) => models[role] !== null);
  const mix = { search: mixOf(tasks.search), final: mixOf([...heldout, ...independent]) };
  const calls = planModelCalls(config, seed.config, rollouts, mix, {
    customer: models.customer !== null,
    judge: models.judge !== null,
    proposer: models.proposer !== null,
    ...(ownRoles.length > 0 ? { own: { roles: ownRoles, attempts: proposer.roleAttempts ?? 1 } } : {}),
  });
  const real = Object.values(models).some((spec) => spec !== null && isRealModelSpec(spec));
  const plan: RunPlan = {
    config: file,
    name: config.name,
    rounds: config.rounds,
    proposalsPerRound: config.proposals_per_round,
    repeats: config.repeats,
    rule: config.acceptance.rule,
    tasks: counts,
    rollouts,
    calls,
    models,
    offlineProposer: models.proposer === null ? config.meta_model : null,
    real,
    estimate: null,
  };
  if (options.pilot === undefined) return plan;
  checkPilot(options.pilot, real, counts.search);
  const host: RunHost = { cwd, env: options.env ?? process.env, warn: options.onMessage ?? (() => {}) };
  const estimate = await runPilot({
    config,
    configFile: file,
    host,
    harness: seed,
    tasks: pilotTasks(tasks.search, options.pilot, config.seed),
    rollouts: rolloutMix(rollouts, mix),
    calls,
  });
  return { ...plan, estimate };
}

function mixOf(tasks: readonly Task[]): TaskMix {
  return {
    total: tasks.length,
    retail: tasks.filter((task) => suiteHasCustomer(task.suite)).length,
    blocked: tasks.filter((task) => task.kind !== "feasible").length,
  };
}

function checkPilot(pilot: number, real: boolean, searchTasks: number): void {
  if (!Number.isInteger(pilot) || pilot < 1)
    throw new HsearchError("bad_input", `${pilot} is not a number of tasks (a whole number, 1 or more)`, {
      field: "pilot",
    });
  if (pilot > searchTasks)
    throw new HsearchError(
      "bad_input",
      `${pilot} tasks, but the config has only ${searchTasks} search tasks`,
      { field: "pilot" },
    );
  if (!real)
    throw new HsearchError(
      "bad_input",
      "every model of this config is offline (sim, oracle, scripted customer, rules judge, operators): it costs nothing, so there is nothing to estimate",
      { field: "pilot" },
    );
}

/**
 * `count` search tasks chosen by the run's seed: blocked tasks with their feasible counterparts first, so the pilot
 * sees both kinds as the paired search split has them; tasks without a counterpart fill what is left. Only the
 * search split: the pilot never runs a held-out or independent task.
 */
export function pilotTasks(search: readonly Task[], count: number, seed: number): Task[] {
  const rng = createRng(seed, "plan-pilot");
  const byId = new Map(search.map((task) => [task.id, task]));
  const chosen: Task[] = [];
  const taken = new Set<string>();
  const take = (task: Task) => {
    if (chosen.length >= count || taken.has(task.id)) return;
    taken.add(task.id);
    chosen.push(task);
  };
  for (const blocked of rng.shuffle(search.filter((task) => task.kind !== "feasible"))) {
    const source = blocked.source ? byId.get(blocked.source) : undefined;
    if (!source || taken.has(source.id) || chosen.length + 2 > count) continue;
    take(blocked);
    take(source);
  }
  for (const task of rng.shuffle(search)) take(task);
  return chosen;
}
