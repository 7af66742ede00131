import { z } from "zod";
import { settleAll } from "../../core";
import { harnessLimitsOf } from "../../harness";
import { definedObjectiveScore, type EpisodeScore } from "../../scoring";
import { loadCandidate, refreshCandidate, runJobs } from "../loop/candidate-rollouts";
import { commonPairs } from "../loop/infra-errors";
import type { SearchDeps } from "../loop/search-deps";
import { evaluateProposal, type Screen } from "./admit-proposal";
import { earlyRejectRound } from "./early-reject-round";
import { defineAcceptanceRule, type RoundContext } from "./rule";
import {
  type AcceptanceDecision,
  decideGreater,
  type EvaluatedProposal,
  type ProposalVerdict,
} from "./verdicts";

/** The study's rule: the round's best proposal is accepted if it beats the incumbent; optionally with early rejection. */
const schema = z
  .object({
    rule: z.literal("greater"),
    early_reject: z
      .union([z.boolean(), z.literal("leader")])
      .default(false)
      .describe(
        "true: stop a proposal's evaluation once it can no longer beat the incumbent (its tasks run those the incumbent fails first) — the same decisions, proposals and selection as evaluating it on every search task, for fewer rollouts. leader: also once it can no longer beat the round's leader (run to the end first) — the same round decisions, but such a proposal has no score, so the operators' crossover donors can differ. Greedy only.",
      ),
  })
  .strict()
  .describe("Accept the round's best proposal if it beats the incumbent.");

export const greaterRule = defineAcceptanceRule({
  schema,
  check: (rule, config) =>
    rule.early_reject && config.strategy === "pareto"
      ? {
          message:
            "acceptance.early_reject stops a proposal once it cannot beat the one incumbent: use it with strategy greedy",
          field: ["acceptance", "early_reject"],
        }
      : null,
  // Every candidate is scored on at most every search task. Under early rejection a proposal that changes nothing
  // stops after the incumbent's failed search tasks, which no config tells: its expectation is the bound.
  plan: (rule, config, counts) => {
    const full = (1 + config.rounds * config.proposals_per_round) * counts.search * config.repeats;
    return {
      search: { max: full, expected: full },
      tasksPerUnchangedProposal: rule.early_reject ? null : counts.search,
      note: rule.early_reject
        ? "early_reject: a proposal stops once it cannot beat the incumbent, after about the search tasks the incumbent fails; expected is the bound"
        : null,
    };
  },
  round: async (rule, { deps, repo, round, incumbent, incumbentScore, admitted }) => {
    if (rule.early_reject) {
      const early = await earlyRejectRound(
        deps,
        repo,
        round,
        incumbent,
        admitted,
        rule.early_reject === "leader",
      );
      const decided = await pairedGreater(deps, repo, incumbent, incumbentScore, early.evaluated);
      return { evaluated: early.evaluated, decision: withEarlyRejections(decided, early.rejected, admitted) };
    }
    const evaluated = await evaluateAll({ deps, repo, round, admitted });
    return { evaluated, decision: await pairedGreater(deps, repo, incumbent, incumbentScore, evaluated) };
  },
});

/** Every admitted proposal evaluated on the search split at once, in proposal order (`screen`: the rule's, if any). */
export async function evaluateAll(
  { deps, repo, round, admitted }: Pick<RoundContext, "deps" | "repo" | "round" | "admitted">,
  screen?: Screen,
): Promise<EvaluatedProposal[]> {
  const results = await settleAll(
    admitted.map((proposal) => evaluateProposal(deps, repo, proposal.parent, round, proposal, screen)),
  );
  return results.filter((result): result is EvaluatedProposal => result !== null);
}

/**
 * A candidate's search scores of the configured repeats, running again any (task, repeat) that met an
 * infrastructure error (its stored score and summary follow).
 */
async function searchScores(deps: SearchDeps, repo: string, commit: string): Promise<EpisodeScore[]> {
  const scores = await runJobs(
    deps,
    await loadCandidate(repo, commit, harnessLimitsOf(deps.config.limits)),
    commit,
    "search",
    deps.tasks.search,
    `retry ${commit.slice(0, 12)}`,
  );
  refreshCandidate(deps, commit, scores);
  return scores;
}

/**
 * The greater rule on the pairs both arms scored: each proposal's score and the incumbent's, over the (task,
 * repeat) pairs scored for both. Without infrastructure errors these are the candidates' own scores.
 */
async function pairedGreater(
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  incumbentScore: number,
  proposals: readonly EvaluatedProposal[],
): Promise<AcceptanceDecision> {
  const objective = deps.config.objective;
  const incumbentScores = await searchScores(deps, repo, incumbent);
  const paired: EvaluatedProposal[] = [];
  for (const proposal of proposals) {
    const [theirs, mine] = commonPairs(incumbentScores, await searchScores(deps, repo, proposal.commit));
    paired.push({
      ...proposal,
      score: definedObjectiveScore(mine, objective) ?? proposal.score,
      baseline: definedObjectiveScore(theirs, objective) ?? incumbentScore,
    });
  }
  return decideGreater(incumbentScore, paired);
}

/** The round's verdicts in proposal order, the early-rejected ones among them. */
function withEarlyRejections(
  decision: AcceptanceDecision,
  rejected: readonly ProposalVerdict[],
  admitted: RoundContext["admitted"],
): AcceptanceDecision {
  const index = new Map(admitted.map((p) => [p.commit, p.index]));
  const verdicts = [...decision.verdicts, ...rejected].sort(
    (a, b) => (index.get(a.commit) ?? 0) - (index.get(b.commit) ?? 0),
  );
  return { accepted: decision.accepted, verdicts };
}
