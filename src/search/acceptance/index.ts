import { z } from "zod";
import { addToRegistry } from "../../core";
import type { SearchConfig } from "../config/config-schema";
import type { Screen } from "./admit-proposal";
import type { AcceptanceConfig } from "./config";
import { greaterRule } from "./greater";
import { pairedRule } from "./paired";
import { raceRule } from "./race";
import {
  type AcceptanceRule,
  type PlanCounts,
  type RoundContext,
  type RoundResult,
  type RulePlan,
  type RuleProblem,
  type RuleSchema,
  ruleName,
} from "./rule";

/**
 * The acceptance rules (docs/DESIGN.md §7), one module each; a new rule is one module and one line of this list. The
 * config schema's `acceptance` union, its checks, `run --plan` and the search loop all go through it.
 */
export const ACCEPTANCE_RULES: AcceptanceRule[] = [greaterRule, pairedRule, raceRule];

let built: z.ZodType<AcceptanceConfig> | null = null;

/**
 * Add a rule from outside this list; returns what removes it again. The config schemas are built from the list:
 * register through src/search/extend.ts, which rebuilds them.
 */
export function addAcceptanceRule(rule: AcceptanceRule): () => void {
  return addToRegistry(ACCEPTANCE_RULES, rule, {
    what: "an acceptance rule",
    nameOf: ruleName,
    changed: () => {
      built = null;
    },
  });
}

/** The config's `acceptance` field: one member per registered rule, told apart by `rule`. */
export function acceptanceSchema(): z.ZodType<AcceptanceConfig> {
  built ??= z.discriminatedUnion(
    "rule",
    ACCEPTANCE_RULES.map((rule) => rule.schema) as unknown as [RuleSchema, ...RuleSchema[]],
  ) as unknown as z.ZodType<AcceptanceConfig>;
  return built;
}

/** The module of a parsed config's rule (the schema admits registered rules only). */
export function ruleOf(acceptance: AcceptanceConfig): AcceptanceRule {
  const rule = ACCEPTANCE_RULES.find((known) => ruleName(known) === acceptance.rule);
  if (!rule) throw new Error(`no acceptance rule named ${acceptance.rule} is registered`);
  return rule;
}

/** A problem of the rule's fields with the rest of the config, or null. */
export function checkAcceptance(config: Pick<SearchConfig, "acceptance" | "strategy">): RuleProblem | null {
  return ruleOf(config.acceptance).check?.(config.acceptance, config) ?? null;
}

/** The rule's search rollouts for `run --plan`. */
export function planAcceptance(config: SearchConfig, counts: PlanCounts): RulePlan {
  return ruleOf(config.acceptance).plan(config.acceptance, config, counts);
}

/** The rule's screen before a proposal's full evaluation, if it has one. */
export function acceptanceScreen(config: SearchConfig): Screen | undefined {
  const rule = ruleOf(config.acceptance);
  const screen = rule.screen;
  return screen ? (...args) => screen.call(rule, config.acceptance, ...args) : undefined;
}

/** A greedy round: the rule evaluates the admitted proposals and decides. */
export function acceptanceRound(context: RoundContext): Promise<RoundResult> {
  const acceptance = context.deps.config.acceptance;
  return ruleOf(acceptance).round(acceptance, context);
}

export type { AcceptanceConfig } from "./config";
export { paretoRound } from "./pareto";
export { recordVerdict } from "./record";
export {
  type AcceptanceRule,
  defineAcceptanceRule,
  type PlanCounts,
  type RoundContext,
  type RoundResult,
  type RulePlan,
  type RuleProblem,
  ruleName,
} from "./rule";
export * from "./verdicts";
