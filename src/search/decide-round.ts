import { join } from "node:path";
import { settleAll } from "../core/pool";
import { harnessLimitsOf } from "../harness/load";
import { definedObjectiveScore, type EpisodeScore } from "../scoring";
import {
  decideGreater,
  type EvaluatedProposal,
  keepOneAccepted,
  type PairedStep,
  type ProposalVerdict,
  pairedStep,
  pairedTest,
  type Verdict,
} from "./acceptance";
import { loadCandidate, refreshCandidate, runJobs } from "./candidate-rollouts";
import { commonPairs } from "./infra-errors";
import type { SearchDeps } from "./search-deps";

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
) {
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

/** The end of a round: the acceptance rule's verdict on every evaluated proposal, and which one (if any) is accepted. */
export async function decide(
  deps: SearchDeps,
  round: number,
  incumbent: string,
  incumbentScore: number,
  proposals: readonly EvaluatedProposal[],
) {
  const rule = deps.config.acceptance;
  const repo = join(deps.runDir, "harness");
  if (rule.rule === "greater") return pairedGreater(deps, repo, incumbent, incumbentScore, proposals);
  if (rule.rule === "race") throw new Error("a raced round is decided by raceRound");
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

export function recordVerdict(deps: SearchDeps, round: number, verdict: ProposalVerdict): void {
  const candidate = deps.store.getCandidate(verdict.commit);
  if (!candidate) return;
  // An evaluated proposal keeps its score; "rejected" as a state means "not the incumbent", the verdict says why.
  deps.store.setCandidateOutcome(verdict.commit, {
    state: verdict.verdict === "accepted" ? "evaluated" : "rejected",
    verdict: verdict.verdict,
    score: candidate.score,
    summary: candidate.summary,
    rejected_reason: verdict.verdict === "accepted" ? null : verdict.reason,
  });
  deps.store.logEvent("verdict", { round, ...verdict });
}
