import { type HarnessConfig, STEP_LIMITS } from "../../config";
import { REPORT_STEPS } from "../../harness";
import { JUDGE_MAX_ATTEMPTS as JUDGE_ATTEMPTS } from "../../scoring";
import type { SearchConfig } from "../config/config-schema";
import type { ProposerRole } from "../proposers";
import { PROPOSER_ATTEMPTS } from "../proposers/llm-proposer";
import type { SearchPlan } from "./plan";

/**
 * The model calls a search will make (`hsearch run --plan`), pure: per role, a bound from the config and the seed
 * harness, and where the config alone decides it an expectation. What a model does inside its step budget (how
 * many turns the agent takes, how often the customer answers) only a pilot can tell (api/plan.ts), so those roles'
 * expectations are null here. Counts are answered calls; a provider's retries of a failed call come on top.
 */

/** Which roles have a model (scripted customer, rules judge and operators make no model call). */
export interface PlanRoles {
  customer: boolean;
  judge: boolean;
  proposer: boolean;
  /** The proposer's own roles that have a model (convolve's reflector and curator), and its replies per call to each. */
  own?: { roles: readonly ProposerRole[]; attempts: number };
}

/** Tasks of one phase: how many there are, how many are retail (an LLM customer talks) and blocked (judged). */
export interface TaskMix {
  total: number;
  retail: number;
  blocked: number;
}

export interface RoleCalls {
  /** A bound: no run of this config makes more (with the seed harness's step budget). */
  max: number;
  /** The expected number, or null when it depends on the model's behaviour (a pilot measures it). */
  expected: number | null;
  /** How the bound was reached, for the plan's reader. */
  bound: string;
  /** How the expectation was reached; null with it. */
  expectation: string | null;
}

export interface CallPlan {
  /** The bound per rollout: agent turns, customer replies (retail), judge attempts (blocked). */
  perRollout: { agent: number; customer: number; judge: number };
  agent: RoleCalls;
  customer: RoleCalls | null;
  judge: RoleCalls | null;
  proposer: RoleCalls | null;
  /** The proposer's own roles (null without a model). */
  reflector: RoleCalls | null;
  curator: RoleCalls | null;
}

/** Rollouts of each kind at the bound and at the expected point: search rollouts scaled by the search tasks' mix. */
export function rolloutMix(
  plan: SearchPlan,
  mix: { search: TaskMix; final: TaskMix },
): { max: TaskMix; expected: TaskMix } {
  const finalShare = (part: "retail" | "blocked") =>
    mix.final.total === 0 ? 0 : (plan.final * mix.final[part]) / mix.final.total;
  const at = (search: number): TaskMix => ({
    total: search + plan.final,
    retail: (search * mix.search.retail) / mix.search.total + finalShare("retail"),
    blocked: (search * mix.search.blocked) / mix.search.total + finalShare("blocked"),
  });
  return { max: at(plan.search.max), expected: at(plan.search.expected) };
}

/** Every turn of every phase is one agent call: the main loop (continue messages included), then the protocols. */
export function agentTurnsPerRollout(harness: HarnessConfig): number {
  const { protocols } = harness;
  return (
    harness.agent.max_steps +
    (protocols.self_check.enabled ? protocols.self_check.max_steps : 0) +
    (protocols.report.enabled ? REPORT_STEPS : 0)
  );
}

/** The same for a harness not known yet (one a search will select): every budget at the schema's limit. */
export const MAX_AGENT_TURNS_PER_ROLLOUT = STEP_LIMITS.agent + STEP_LIMITS.self_check + REPORT_STEPS;

export function planModelCalls(
  config: SearchConfig,
  harness: HarnessConfig,
  plan: SearchPlan,
  mix: { search: TaskMix; final: TaskMix },
  roles: PlanRoles,
): CallPlan {
  const { protocols } = harness;
  const agentPerRollout = agentTurnsPerRollout(harness);
  // The LLM customer opens the conversation and answers at most once per agent turn.
  const customerPerRollout = roles.customer ? 1 + agentPerRollout : 0;
  const judgePerRollout = roles.judge ? JUDGE_ATTEMPTS : 0;
  const rollouts = rolloutMix(plan, mix);
  const round = (value: number) => Math.round(value);
  const stepsBasis = `${agentPerRollout} turns per rollout from the seed harness (agent.max_steps ${harness.agent.max_steps}${
    protocols.self_check.enabled ? ` + self_check ${protocols.self_check.max_steps}` : ""
  }${protocols.report.enabled ? ` + report ${REPORT_STEPS}` : ""}); a proposal may change it`;
  // Greedy asks once per round; pareto once per parent drawn (at most one per proposal slot).
  const callsPerRound = config.strategy === "pareto" ? config.proposals_per_round : 1;
  const askedPerRound = (attempts: number, asked: string): RoleCalls => ({
    max: config.rounds * callsPerRound * attempts,
    expected: config.strategy === "pareto" ? null : config.rounds,
    bound:
      config.strategy === "pareto"
        ? `${config.rounds} rounds × up to ${callsPerRound} parents × ${attempts} replies each`
        : `${config.rounds} rounds × ${attempts} replies (a valid reply ends the round's asking)`,
    expectation:
      config.strategy === "pareto"
        ? null
        : `one a round${asked}, its first reply valid, in every round; an early stop runs fewer`,
  });
  const proposerCalls = roles.proposer ? askedPerRound(PROPOSER_ATTEMPTS, "") : null;
  const own = (role: ProposerRole, asked: string) =>
    roles.own?.roles.includes(role) ? askedPerRound(roles.own.attempts, asked) : null;
  return {
    perRollout: { agent: agentPerRollout, customer: customerPerRollout, judge: judgePerRollout },
    agent: {
      max: rollouts.max.total * agentPerRollout,
      expected: null,
      bound: stepsBasis,
      expectation: null,
    },
    customer: roles.customer
      ? {
          max: round(rollouts.max.retail * customerPerRollout),
          expected: null,
          bound: "retail rollouts × (an opening + one reply per agent turn)",
          expectation: null,
        }
      : null,
    judge: roles.judge
      ? {
          max: round(rollouts.max.blocked * JUDGE_ATTEMPTS),
          expected: round(rollouts.expected.blocked),
          bound: `blocked rollouts × ${JUDGE_ATTEMPTS} replies (a usable reply ends the asking)`,
          expectation: "one per blocked rollout, its first reply usable; identical episodes share one",
        }
      : null,
    proposer: proposerCalls,
    // A round whose draw is empty asks no reflector, and one without lessons no curator.
    reflector: own("reflector", " when the round draws a trajectory"),
    curator: own("curator", " when the reflector names a lesson"),
  };
}
