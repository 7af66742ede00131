import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRng, HsearchError } from "../core";
import type { Task } from "../domain";
import { imageSourceChosen, internetAllowed, suiteHasCustomer } from "../envs";
import { evaluateJobs, planRollouts } from "../eval";
import type { Harness, Trajectory } from "../harness";
import type { ModelRole, UsageMeter } from "../models";
import {
  costOf,
  DEFAULT_PRICES_PATH,
  loadPriceTable,
  openRequestCache,
  type PriceTable,
  requestCacheFile,
  roleMeters,
} from "../models";
import type { ChatModel } from "../models/types";
import { type EpisodeScore, objectiveScore } from "../scoring";
import { PROPOSER_ATTEMPTS, type ProposerRole, proposeByLlm, proposerOf, seedProposerInput } from "../search";
import type { CallPlan, RoleCalls, SearchConfig, TaskMix } from "../search/types";
import { judgeOf, openRunCache, type RunHost, runModels } from "./run-setup";

/**
 * The plan's pilot: the seed harness on a few search tasks with the config's real models, through the run's own
 * rollout, scoring and usage code, then each role's measured calls, tokens and USD per rollout scaled to the
 * plan's rollouts; and one proposer call on round 1's prompt built from the pilot's episodes. An estimate, never a bound: a proposal changes the harness, and a model's behaviour varies.
 */

/** Calls, tokens and USD of one role (per rollout in the basis, in total in the estimate); usd null when unpriced. */
export interface Spend {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  usd: number | null;
}

export type RoleSpend = Record<ModelRole | "total", Spend>;

export interface PilotEstimate {
  /** What the estimate rests on. */
  basis: {
    /** The pilot's search tasks (seeded choice) and rollouts (one each). */
    tasks: string[];
    rollouts: number;
    /** Pilot rollouts that ended in an infrastructure error after retries (their calls are counted still). */
    infraErrors: number;
    /** Measured: the agent per rollout, the customer per retail rollout, the judge per blocked rollout. */
    perRollout: { agent: Spend; customer: Spend | null; judge: Spend | null };
    /** The proposer: one round measured by a pilot call; the bound per call from its budget (see `from`). */
    proposer: { perRound: Spend; atMostPerCall: Spend; validReply: boolean; from: string } | null;
    /**
     * The proposer's own roles with a model (convolve's reflector and curator): one round measured by a pilot of
     * them; at most, every call at the pilot's tokens per call.
     */
    roles: { spend: Partial<Record<ProposerRole, Spend>>; proposed: boolean; from: string } | null;
    /** The price table the USD come from. */
    prices: string;
    /** Where the pilot's requests were cached: a shared cache the run then reuses, or a throwaway one. */
    cache: string;
  };
  /** At the plan's expected rollouts and proposer calls. */
  expected: RoleSpend;
  /** At the plan's bound of rollouts and proposer calls (the per-rollout figures stay the pilot's). */
  atMost: RoleSpend;
}

export interface PilotInput {
  config: SearchConfig;
  configFile: string;
  host: RunHost;
  harness: Harness;
  tasks: readonly Task[];
  rollouts: { max: TaskMix; expected: TaskMix };
  calls: CallPlan;
}

export async function runPilot(input: PilotInput): Promise<PilotEstimate> {
  const { config, host } = input;
  const prices = loadPriceTable();
  const meters = roleMeters(prices);
  const cache = pilotCache(input);
  try {
    const models = runModels(config, host, cache.path, undefined, meters);
    const outcomes = await evaluateJobs({
      harness: input.harness,
      jobs: planRollouts(input.tasks, 1, config.seed),
      model: models.agent,
      judge: judgeOf(models),
      concurrency: config.concurrency,
      ...(models.customer ? { customerModel: models.customer } : {}),
      prices,
      imageSource: config.image_source ?? imageSourceChosen(host.env),
      allowInternet: internetAllowed(host.env),
    });
    const infraErrors = outcomes.filter((outcome) => outcome.score.kind === "infra_error");
    if (infraErrors.length === outcomes.length) {
      const first = infraErrors[0]?.score;
      throw new HsearchError(
        "provider",
        `every pilot rollout ended in an infrastructure error; nothing to estimate from (first: ${first?.kind === "infra_error" ? first.error : "unknown"})`,
      );
    }
    const retail = input.tasks.filter((task) => suiteHasCustomer(task.suite)).length;
    const blocked = input.tasks.filter((task) => task.kind !== "feasible").length;
    const perRollout = {
      agent: per(measured(meters.agent), input.tasks.length),
      customer: models.customer ? per(measured(meters.customer), retail) : null,
      judge: models.judge ? per(measured(meters.judge), blocked) : null,
    };
    const proposer = models.proposer
      ? await proposerPilot(config, input.harness, models.proposer, meters.proposer, outcomes, prices)
      : null;
    const roles = await rolesPilot(config, input.harness, models, meters, outcomes);
    const roleAt = (role: ProposerRole, calls: RoleCalls | null, point: "expected" | "max"): Spend => {
      const measuredRound = roles?.spend[role];
      if (!measuredRound || !calls) return NONE;
      // Greedy asks once a round; pareto once per parent drawn, taken here at its most (one per proposal slot).
      const rounds = calls.expected ?? calls.max / (proposerOf(config).roleAttempts ?? 1);
      return point === "expected"
        ? scale(measuredRound, rounds)
        : scale(per(measuredRound, measuredRound.calls), calls.max);
    };
    const at = (mix: TaskMix, proposerSpend: Spend, point: "expected" | "max"): RoleSpend => {
      const spend = {
        agent: scale(perRollout.agent, mix.total),
        customer: perRollout.customer ? scale(perRollout.customer, mix.retail) : NONE,
        judge: perRollout.judge ? scale(perRollout.judge, mix.blocked) : NONE,
        proposer: proposerSpend,
        reflector: roleAt("reflector", input.calls.reflector, point),
        curator: roleAt("curator", input.calls.curator, point),
      };
      return { ...spend, total: sum(Object.values(spend)) };
    };
    const proposerCalls = input.calls.proposer;
    // Greedy asks once a round; pareto once per parent drawn, taken here at its most (one per proposal slot).
    const proposerRounds = proposerCalls
      ? (proposerCalls.expected ?? proposerCalls.max / PROPOSER_ATTEMPTS)
      : 0;
    return {
      basis: {
        tasks: input.tasks.map((task) => task.id),
        rollouts: outcomes.length,
        infraErrors: infraErrors.length,
        perRollout: perRollout,
        proposer,
        roles,
        prices: DEFAULT_PRICES_PATH,
        cache: cache.shared
          ? `${cache.path} (the run reuses these answers)`
          : "a throwaway cache (removed); cache.dir run keeps no pilot answer",
      },
      expected: at(
        input.rollouts.expected,
        proposer ? scale(proposer.perRound, proposerRounds) : NONE,
        "expected",
      ),
      atMost: at(
        input.rollouts.max,
        proposer ? scale(proposer.atMostPerCall, proposerCalls?.max ?? 0) : NONE,
        "max",
      ),
    };
  } finally {
    cache.remove();
  }
}

const NONE: Spend = { calls: 0, input_tokens: 0, output_tokens: 0, usd: 0 };

/**
 * Where the pilot's requests go: the config's shared cache (user or a directory), so the run reuses the answers; a
 * throwaway one when the cache lives in the run directory, which the plan never creates.
 */
function pilotCache(input: PilotInput): { path: string; shared: boolean; remove(): void } {
  const { config, host } = input;
  if (config.cache.dir !== "run")
    return { path: openRunCache(config, host, undefined, input.configFile), shared: true, remove: () => {} };
  const dir = mkdtempSync(join(tmpdir(), "hsearch-plan-pilot-"));
  const path = requestCacheFile("run", { runDir: dir, base: host.cwd, env: host.env });
  return {
    path,
    shared: false,
    remove: () => {
      openRequestCache(path).close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What a role's calls cost when made, whether answered now or from the cache (a fresh run pays them all). */
function measured(meter: UsageMeter): Spend {
  const totals = meter.totals();
  const calls = totals.model_calls + totals.cached_calls;
  return {
    calls,
    input_tokens: totals.input_tokens + totals.cached_input_tokens,
    output_tokens: totals.output_tokens + totals.cached_output_tokens,
    usd: totals.unpriced_models.length > 0 && calls > 0 ? null : totals.usd + totals.cached_usd,
  };
}

function per(spend: Spend, rollouts: number): Spend {
  return rollouts === 0 ? NONE : scale(spend, 1 / rollouts);
}

function scale(spend: Spend, by: number): Spend {
  return {
    calls: spend.calls * by,
    input_tokens: spend.input_tokens * by,
    output_tokens: spend.output_tokens * by,
    usd: spend.usd === null ? null : spend.usd * by,
  };
}

function sum(parts: readonly Spend[]): Spend {
  return {
    calls: parts.reduce((total, part) => total + part.calls, 0),
    input_tokens: parts.reduce((total, part) => total + part.input_tokens, 0),
    output_tokens: parts.reduce((total, part) => total + part.output_tokens, 0),
    usd: parts.some((part) => part.usd === null)
      ? null
      : parts.reduce((total, part) => total + (part.usd ?? 0), 0),
  };
}

/**
 * The proposer's own roles (convolve's reflector and curator), from one piloted round: round 1 as a run would ask it
 * from the pilot's episodes, on the roles' models. Null when the config names no model for any of them.
 */
async function rolesPilot(
  config: SearchConfig,
  harness: Harness,
  models: Partial<Record<ProposerRole, ChatModel | undefined>>,
  meters: Record<ModelRole, UsageMeter>,
  outcomes: ReadonlyArray<{
    job: { task: Task; repeat: number };
    trajectory: Trajectory;
    score: EpisodeScore;
  }>,
): Promise<PilotEstimate["basis"]["roles"]> {
  const proposer = proposerOf(config);
  const roleModels: Partial<Record<ProposerRole, ChatModel>> = {};
  for (const role of proposer.roles ?? []) {
    const model = models[role];
    if (model) roleModels[role] = model;
  }
  const roles = Object.keys(roleModels) as ProposerRole[];
  if (roles.length === 0 || !proposer.pilotRoles) return null;
  const scored = outcomes.filter((outcome) => outcome.score.kind !== "infra_error");
  const result = await proposer.pilotRoles({
    config,
    input: seedProposerInput(
      harness,
      scored,
      objectiveScore(
        scored.map((outcome) => outcome.score),
        config.objective,
      ),
      config,
    ),
    episodes: scored.map((outcome) => ({
      key: `${outcome.job.task.id}#${outcome.job.repeat}`,
      trajectory: outcome.trajectory,
      score: outcome.score,
    })),
    models: roleModels,
    seed: createRng(config.seed, "plan-pilot", "roles").int(2 ** 31),
  });
  return {
    spend: Object.fromEntries(roles.map((role) => [role, measured(meters[role])])),
    proposed: result.proposed,
    from: result.from,
  };
}

/**
 * The proposer, from one pilot call: round 1's prompt as a run would build it from the pilot's episodes (a run's
 * grows with more tasks' failures, up to `proposer.max_prompt_tokens`), answered by the real model — its invalid
 * replies retried as a run retries them. At most: every call with the whole prompt budget and the role's max_tokens
 * (else the pilot's reply length).
 */
async function proposerPilot(
  config: SearchConfig,
  harness: Harness,
  model: ChatModel,
  meter: UsageMeter,
  episodes: ReadonlyArray<{ trajectory: Trajectory; score: EpisodeScore }>,
  prices: PriceTable,
): Promise<NonNullable<PilotEstimate["basis"]["proposer"]>> {
  const scored = episodes.filter((episode) => episode.score.kind !== "infra_error");
  const input = seedProposerInput(
    harness,
    scored,
    objectiveScore(
      scored.map((episode) => episode.score),
      config.objective,
    ),
    config,
  );
  const result = await proposeByLlm(
    model,
    {
      ...input,
      count: config.proposals_per_round,
      objective: config.objective,
      maxTokens: config.proposer.max_prompt_tokens,
    },
    { seed: createRng(config.seed, "meta", 1).int(2 ** 31) },
  );
  const perRound = measured(meter);
  const limit = config.models?.proposer?.max_tokens ?? config.models?.proposer?.max_output_tokens ?? null;
  const output = limit ?? (perRound.calls === 0 ? 0 : perRound.output_tokens / perRound.calls);
  const cost = costOf(prices, model.id, {
    input_tokens: config.proposer.max_prompt_tokens,
    output_tokens: output,
  });
  return {
    perRound,
    atMostPerCall: {
      calls: 1,
      input_tokens: config.proposer.max_prompt_tokens,
      output_tokens: output,
      usd: cost.priced ? cost.usd : null,
    },
    validReply: result.proposals.length > 0,
    from: `a pilot call with round 1's prompt built from the pilot's ${scored.length} episodes (a run's prompt grows with more tasks' failures); at most every call with the prompt budget (proposer.max_prompt_tokens ${config.proposer.max_prompt_tokens}) and ${
      limit === null ? "the pilot's reply length" : `models.proposer.max_tokens ${limit}`
    }`,
  };
}
