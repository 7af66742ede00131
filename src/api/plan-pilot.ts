import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HsearchError } from "../core/errors";
import type { Task } from "../domain/task";
import { evaluateJobs, planRollouts } from "../eval/evaluate";
import type { Harness } from "../harness/load";
import { openRequestCache, requestCacheFile } from "../models/cache";
import { costOf, DEFAULT_PRICES_PATH, loadPriceTable } from "../models/prices";
import { roleMeters } from "../models/roles";
import type { ModelRole } from "../models/settings";
import type { UsageMeter } from "../models/usage";
import type { SearchConfig } from "../search/config-schema";
import type { CallPlan, TaskMix } from "../search/plan-calls";
import { judgeOf, openRunCache, type RunHost, runModels } from "./run-setup";

/**
 * The plan's pilot: the seed harness on a few search tasks with the config's real models, through the run's own
 * rollout, scoring and usage code, then each role's measured calls, tokens and USD per rollout scaled to the
 * plan's rollouts. An estimate, never a bound: a proposal changes the harness, and a model's behaviour varies.
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
    /** The proposer per call: estimated, not measured (see `from`). */
    proposer: (Spend & { from: string }) | null;
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

/** Output tokens assumed per proposer call when the proposer role sets no max_tokens: a few edited files. */
export const ASSUMED_PROPOSER_OUTPUT_TOKENS = 4_000;

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
    });
    const infraErrors = outcomes.filter((outcome) => outcome.score.kind === "infra_error");
    if (infraErrors.length === outcomes.length) {
      const first = infraErrors[0]?.score;
      throw new HsearchError(
        "provider",
        `every pilot rollout ended in an infrastructure error; nothing to estimate from (first: ${first?.kind === "infra_error" ? first.error : "unknown"})`,
      );
    }
    const retail = input.tasks.filter((task) => task.suite === "retail").length;
    const blocked = input.tasks.filter((task) => task.kind !== "feasible").length;
    const perRollout = {
      agent: per(measured(meters.agent), input.tasks.length),
      customer: models.customer ? per(measured(meters.customer), retail) : null,
      judge: models.judge ? per(measured(meters.judge), blocked) : null,
    };
    const proposer = proposerPerCall(config, models.proposer?.id, prices);
    const at = (mix: TaskMix, proposerCalls: number): RoleSpend => {
      const spend = {
        agent: scale(perRollout.agent, mix.total),
        customer: perRollout.customer ? scale(perRollout.customer, mix.retail) : NONE,
        judge: perRollout.judge ? scale(perRollout.judge, mix.blocked) : NONE,
        proposer: proposer ? scale(proposer, proposerCalls) : NONE,
      };
      return { ...spend, total: sum(Object.values(spend)) };
    };
    const proposerCalls = input.calls.proposer;
    return {
      basis: {
        tasks: input.tasks.map((task) => task.id),
        rollouts: outcomes.length,
        infraErrors: infraErrors.length,
        perRollout: perRollout,
        proposer,
        prices: DEFAULT_PRICES_PATH,
        cache: cache.shared ? cache.path : "a throwaway cache (removed); cache.dir run keeps no pilot answer",
      },
      expected: at(
        input.rollouts.expected,
        proposerCalls ? (proposerCalls.expected ?? proposerCalls.max) : 0,
      ),
      atMost: at(input.rollouts.max, proposerCalls?.max ?? 0),
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
 * The proposer per call, from its budget rather than a call: its prompt is trimmed to `proposer.max_prompt_tokens`
 * (so the input is at most that), and its reply to the role's max_tokens when set, else an assumed few files' worth.
 */
function proposerPerCall(
  config: SearchConfig,
  model: string | undefined,
  prices: ReturnType<typeof loadPriceTable>,
): (Spend & { from: string }) | null {
  if (!model) return null;
  const input = config.proposer.max_prompt_tokens;
  const limit = config.models?.proposer?.max_tokens ?? config.models?.proposer?.max_output_tokens ?? null;
  const output = limit ?? ASSUMED_PROPOSER_OUTPUT_TOKENS;
  const cost = costOf(prices, model, { input_tokens: input, output_tokens: output });
  return {
    calls: 1,
    input_tokens: input,
    output_tokens: output,
    usd: cost.priced ? cost.usd : null,
    from: `its prompt budget (proposer.max_prompt_tokens ${input}) and ${
      limit === null
        ? `an assumed ${ASSUMED_PROPOSER_OUTPUT_TOKENS} output tokens (models.proposer sets no max_tokens)`
        : `models.proposer.max_tokens ${limit}`
    }, not a pilot call`,
  };
}
