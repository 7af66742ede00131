import { z } from "zod";
import { createRng, settleAll } from "../../core";
import { harnessLimitsOf } from "../../harness";
import { definedObjectiveScore, type EpisodeScore } from "../../scoring";
import { loadCandidate, refreshCandidate, runJobs } from "../loop/candidate-rollouts";
import { commonPairs } from "../loop/infra-errors";
import type { SearchDeps } from "../loop/search-deps";
import type { Admitted, Screen } from "./admit-proposal";
import { evaluateAll } from "./greater";
import { defineAcceptanceRule } from "./rule";
import {
  type EvaluatedProposal,
  keepOneAccepted,
  type PairedStep,
  type ProposalVerdict,
  pairedStep,
  pairedTest,
  screenStep,
  type Verdict,
} from "./verdicts";

/** A paired test over tasks must clear alpha; close calls earn extra repeats; an optional screen rejects early. */
const schema = z
  .object({
    rule: z.literal("paired"),
    alpha: z.number().gt(0).lt(1).default(0.1),
    max_extra_repeats: z.number().int().min(0).max(20).default(2),
    screen: z
      .object({ fraction: z.number().gt(0).lt(1), reject_below: z.number() })
      .strict()
      .optional()
      .describe("Evaluate on a subset first; may reject early, never accept."),
  })
  .strict()
  .describe("Accept only when a paired test over tasks clears alpha.");

type PairedRule = z.infer<typeof schema>;

export const pairedRule = defineAcceptanceRule({
  schema,
  // A close call re-runs both arms with one more repeat, up to max_extra_repeats times.
  plan: (rule, config, counts) => {
    const proposals = config.rounds * config.proposals_per_round;
    const full = (1 + proposals) * counts.search * config.repeats;
    const extra = proposals * 2 * counts.search * rule.max_extra_repeats;
    return {
      search: { max: full + extra, expected: full },
      tasksPerUnchangedProposal: counts.search,
      note: extra > 0 ? "more only for close calls' extra repeats" : null,
    };
  },
  screen: screenedOut,
  round: async (rule, context) => {
    const { deps, repo, round, incumbent } = context;
    const screen: Screen = (...args) => screenedOut(rule, ...args);
    const evaluated = await evaluateAll(context, screen);
    return { evaluated, decision: await decidePaired(rule, deps, repo, round, incumbent, evaluated) };
  },
});

/** The optional screen: evaluate on a seeded subset first, and reject early if far behind. */
async function screenedOut(
  rule: PairedRule,
  deps: SearchDeps,
  repo: string,
  incumbent: string,
  { commit, index }: Admitted,
  round: number,
): Promise<boolean> {
  if (!rule.screen) return false;
  const known = deps.store.getCandidate(commit);
  if (known?.state === "evaluated") return false;
  const count = Math.max(1, Math.round(deps.tasks.search.length * rule.screen.fraction));
  const subset = createRng(deps.config.seed, "screen", round).shuffle(deps.tasks.search).slice(0, count);
  const ids = new Set(subset.map((task) => task.id));
  const proposalScores = await runJobs(
    deps,
    await loadCandidate(repo, commit, harnessLimitsOf(deps.config.limits)),
    commit,
    "search",
    subset,
    `round ${round} p${index} screen`,
  );
  const incumbentScores = deps.store
    .listRollouts(incumbent, "search")
    .map((r) => r.scores)
    .filter((score) => ids.has(score.task_id) && score.repeat < deps.config.repeats);
  const objective = deps.config.objective;
  // Both arms on the (task, repeat) pairs scored for both: an infrastructure error in either leaves the pair out.
  const [theirPairs, myPairs] = commonPairs(incumbentScores, proposalScores);
  const mine = definedObjectiveScore(myPairs, objective);
  const theirs = definedObjectiveScore(theirPairs, objective);
  if (mine === null || theirs === null || screenStep(mine, theirs, rule.screen.reject_below) === "continue")
    return false;
  const reason = `screened out: ${mine.toFixed(4)} on ${count} tasks, incumbent ${theirs.toFixed(4)} (margin ${rule.screen.reject_below})`;
  deps.store.setCandidateOutcome(commit, {
    state: "rejected",
    verdict: "screened_out",
    score: null,
    rejected_reason: reason,
  });
  deps.events?.candidate?.({ round, proposal: index, commit, score: null, state: "rejected", reason });
  return true;
}

/** The paired test of each proposal against the incumbent, with extra repeats for close calls; one is accepted. */
async function decidePaired(
  rule: PairedRule,
  deps: SearchDeps,
  repo: string,
  round: number,
  incumbent: string,
  proposals: readonly EvaluatedProposal[],
) {
  const verdicts: ProposalVerdict[] = [];
  // α is spent per round: split over the round's proposals (Bonferroni), and halved per look when close calls may get
  // extra repeats (re-testing at the same α is optional stopping; bench/acceptance.ts measured both effects).
  const roundAlpha = rule.alpha / Math.max(1, proposals.length);
  const lookAlpha = rule.max_extra_repeats > 0 ? roundAlpha / 2 : roundAlpha;
  for (const proposal of proposals) {
    let extra = 0;
    let step: PairedStep = "more";
    const draws = (look: number) => ({ seed: deps.config.seed, round, proposal: proposal.proposal, look });
    let test = pairedTest([], [], deps.config.objective, draws(0));
    while (step === "more") {
      const repeats = deps.config.repeats + extra;
      const [incumbentScores, proposalScores] = await settleAll(
        [incumbent, proposal.commit].map(async (commit) =>
          runJobs(
            deps,
            await loadCandidate(repo, commit, harnessLimitsOf(deps.config.limits)),
            commit,
            "search",
            deps.tasks.search,
            `paired test, repeat ${repeats}`,
            repeats,
          ),
        ),
      );
      // A retried infrastructure error changes a candidate's own score (the configured repeats only).
      if (extra === 0) {
        refreshCandidate(deps, incumbent, incumbentScores as EpisodeScore[]);
        refreshCandidate(deps, proposal.commit, proposalScores as EpisodeScore[]);
      }
      test = pairedTest(
        incumbentScores as EpisodeScore[],
        proposalScores as EpisodeScore[],
        deps.config.objective,
        draws(extra),
      );
      step = pairedStep(test, lookAlpha, extra, rule.max_extra_repeats);
      if (step === "more") extra++;
    }
    const p = test.p_value.toFixed(4);
    const withExtra = extra > 0 ? ` after ${extra} extra repeat${extra > 1 ? "s" : ""}` : "";
    const reason =
      step === "accepted"
        ? `p = ${p} ≤ ${fmtAlpha(lookAlpha)}${withExtra}`
        : step === "indecisive"
          ? `close call: p = ${p} > ${fmtAlpha(lookAlpha)}${withExtra}`
          : `p = ${p} > ${fmtAlpha(lookAlpha)} (difference ${test.difference.toFixed(4)})`;
    verdicts.push({ commit: proposal.commit, verdict: step as Verdict, reason, p_value: test.p_value });
  }
  return keepOneAccepted(proposals, verdicts);
}

function fmtAlpha(alpha: number): string {
  return `α = ${Number(alpha.toPrecision(3))}`;
}
