import type { Screen } from "./admit-proposal";
import { evaluateAll } from "./greater";
import { decidePareto } from "./pareto-round";
import type { RoundContext, RoundResult } from "./rule";

/**
 * How a round is decided under `strategy: pareto` whatever the rule: every admitted proposal is evaluated (the rule's
 * screen first, if it has one), then admitted to the front in proposal order (src/search/acceptance/pareto-round.ts); the
 * incumbent becomes the front's best by the objective, which an admitted proposal may not change.
 */
export async function paretoRound(
  context: RoundContext,
  screen: Screen | undefined,
): Promise<RoundResult & { best: string }> {
  const evaluated = await evaluateAll(context, screen);
  const { verdicts, accepted, best } = decidePareto(context.deps, context.round, evaluated);
  return { evaluated, decision: { accepted, verdicts }, best };
}
