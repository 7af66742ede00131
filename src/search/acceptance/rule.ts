import type { z } from "zod";
import type { SearchConfig } from "../config/config-schema";
import type { SearchDeps } from "../loop/search-deps";
import type { Admitted } from "./admit-proposal";
import type { AcceptanceDecision, EvaluatedProposal } from "./verdicts";

/**
 * An acceptance rule (docs/DESIGN.md §7): its config fields, the checks across fields, its share of `run --plan`, and
 * how a round's admitted proposals are evaluated and decided. One module per rule, listed once in `index.ts`; the
 * search loop, the config loader and the plan call these and never ask which rule it is.
 */
export type RuleSchema = z.ZodObject<{ rule: z.ZodLiteral<string> } & z.ZodRawShape>;

/** A config problem across fields: the message and the field it names (`acceptance.…`, for file and line). */
export interface RuleProblem {
  message: string;
  field: readonly string[];
}

/** Search rollouts of the rule: at most and expected, and what the expected figure assumes (for `run --plan`). */
export interface RulePlan {
  search: { max: number; expected: number };
  /**
   * Search tasks a proposal that changes nothing runs before the rule stops it; null when no config tells (it
   * depends on the incumbent's outcomes).
   */
  tasksPerUnchangedProposal: number | null;
  /** Why expected is what it is, printed after it; null when nothing needs saying. */
  note: string | null;
}

export interface PlanCounts {
  search: number;
  heldout: number;
  independent: number;
}

/** What a round hands its rule: the admitted proposals of this round, with their parents, and the incumbent. */
export interface RoundContext {
  deps: SearchDeps;
  repo: string;
  round: number;
  incumbent: string;
  incumbentScore: number;
  admitted: ReadonlyArray<Admitted & { parent: string }>;
}

/** Every proposal the round scored, and the verdict on each proposal in proposal order (rejected early ones too). */
export interface RoundResult {
  evaluated: EvaluatedProposal[];
  decision: AcceptanceDecision;
}

export interface AcceptanceRule<S extends RuleSchema = RuleSchema> {
  /** `acceptance.rule`'s value and the rule's other fields: the config schema's union is built from these. */
  schema: S;
  /** A problem with the rule's fields given the rest of the config (e.g. a greedy-only mode under pareto). */
  check?(rule: z.infer<S>, config: Pick<SearchConfig, "strategy">): RuleProblem | null;
  plan(rule: z.infer<S>, config: SearchConfig, counts: PlanCounts): RulePlan;
  /**
   * Before a proposal's full evaluation (under every strategy): true when the rule rejects it here, having stored
   * why. Absent: every admitted proposal is evaluated.
   */
  screen?(
    rule: z.infer<S>,
    deps: SearchDeps,
    repo: string,
    parent: string,
    proposal: Admitted,
    round: number,
  ): Promise<boolean>;
  /** A greedy round: evaluate the admitted proposals and decide. */
  round(rule: z.infer<S>, context: RoundContext): Promise<RoundResult>;
}

/** A rule's name: its `rule` literal. */
export function ruleName(rule: AcceptanceRule): string {
  return rule.schema.shape.rule.value;
}

/** Types a rule module's export. */
export function defineAcceptanceRule<S extends RuleSchema>(rule: AcceptanceRule<S>): AcceptanceRule<S> {
  return rule;
}
