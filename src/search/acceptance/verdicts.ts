import type { EpisodeScore } from "../../scoring";
import {
  countedEpisodes,
  episodeKey,
  matchEpisodes,
  type ObjectiveName,
  objectiveOf,
  pairedBootstrapMeanDifference,
  pairedOutcome,
} from "../../scoring";

/**
 * Acceptance (docs/DESIGN.md §7), pure: given the incumbent's and the proposals' search scores, which proposal (if any)
 * becomes the incumbent. `greater` is the study's rule; `paired` asks a paired test over tasks to clear alpha.
 */
export interface EvaluatedProposal {
  commit: string;
  proposal: number;
  score: number;
  scores: readonly EpisodeScore[];
  /**
   * The incumbent's score on the pairs `score` was computed on (both arms scored): the bar this proposal must
   * clear. Absent: the incumbent's own score.
   */
  baseline?: number;
}

export type Verdict = "accepted" | "rejected" | "indecisive";

export interface ProposalVerdict {
  commit: string;
  verdict: Verdict;
  reason: string;
  p_value?: number;
}

export interface AcceptanceDecision {
  accepted: string | null;
  verdicts: ProposalVerdict[];
}

/** The best proposal: highest score, then lowest proposal index (deterministic). */
export function bestProposal(proposals: readonly EvaluatedProposal[]): EvaluatedProposal | null {
  let best: EvaluatedProposal | null = null;
  for (const p of proposals)
    if (best === null || p.score > best.score || (p.score === best.score && p.proposal < best.proposal))
      best = p;
  return best;
}

export function decideGreater(
  incumbentScore: number,
  proposals: readonly EvaluatedProposal[],
): AcceptanceDecision {
  const bar = (p: EvaluatedProposal) => p.baseline ?? incumbentScore;
  const best = bestProposal(proposals.filter((p) => p.score > bar(p)));
  const accepted = best?.commit ?? null;
  return {
    accepted,
    verdicts: proposals.map((p) => {
      const base = bar(p);
      if (p.commit === accepted)
        return {
          commit: p.commit,
          verdict: "accepted",
          reason: `${fmt(p.score)} > incumbent ${fmt(base)}`,
        };
      const why =
        p.score <= base
          ? `${fmt(p.score)} ${p.score === base ? "ties" : "<"} incumbent ${fmt(base)}`
          : best !== null && p.score === best.score
            ? `${fmt(p.score)} ties proposal ${best.proposal}, which wins ties (lower index)`
            : `${fmt(p.score)} beats the incumbent but proposal ${best?.proposal} scored higher (${fmt(best?.score ?? 0)})`;
      return { commit: p.commit, verdict: "rejected", reason: why };
    }),
  };
}

/**
 * Only one proposal becomes the incumbent: of those whose paired test cleared, the best (highest score, lowest index
 * on ties); the others are rejected in its favour, a tie named as a tie.
 */
export function keepOneAccepted(
  proposals: readonly EvaluatedProposal[],
  verdicts: readonly ProposalVerdict[],
): AcceptanceDecision {
  const cleared = new Set(verdicts.filter((v) => v.verdict === "accepted").map((v) => v.commit));
  const best = bestProposal(proposals.filter((p) => cleared.has(p.commit)));
  return {
    accepted: best?.commit ?? null,
    verdicts: verdicts.map((verdict) => {
      if (verdict.verdict !== "accepted" || best === null || verdict.commit === best.commit)
        return { ...verdict };
      const score = proposals.find((p) => p.commit === verdict.commit)?.score;
      const why =
        score === best.score
          ? `ties proposal ${best.proposal} (${fmt(best.score)}), which wins ties (lower index)`
          : `proposal ${best.proposal} scored higher (${fmt(best.score)})`;
      return { ...verdict, verdict: "rejected", reason: `${verdict.reason}, but ${why}` };
    }),
  };
}

export interface PairedTest {
  p_value: number;
  /** Mean of proposal − incumbent over paired episodes. */
  difference: number;
  n: number;
}

/**
 * Where one paired test draws its bootstrap resamples: from the run seed by the path (round, proposal, look), like
 * every other draw, so each proposal and each extra look gets its own resamples, reproducibly.
 */
export interface PairedDraws {
  seed: number;
  round: number;
  proposal: number;
  /** 0 for the first test of a proposal, k after k extra repeats. */
  look: number;
}

/**
 * SA-only: exact McNemar on discordant blocked pairs. Joint: a seeded paired bootstrap of the mean difference
 * (one-sided p: the share of resamples with a difference ≤ 0).
 */
export function pairedTest(
  incumbent: readonly EpisodeScore[],
  proposal: readonly EpisodeScore[],
  objective: ObjectiveName,
  draws: PairedDraws,
): PairedTest {
  const value = objectiveOf(objective).episodeValue;
  const { pairs } = matchEpisodes(
    countedEpisodes(incumbent, objective),
    countedEpisodes(proposal, objective),
  );
  // Resampled in the order the draws have always been taken (task#repeat as text), so a run resumed across
  // versions draws the same resamples.
  pairs.sort(([x], [y]) => (episodeKey(x) < episodeKey(y) ? -1 : episodeKey(x) > episodeKey(y) ? 1 : 0));
  const xs = pairs.map(([first]) => value(first) as number);
  const ys = pairs.map(([, second]) => value(second) as number);
  const n = pairs.length;
  const difference = n === 0 ? 0 : ys.reduce((s, y, i) => s + y - (xs[i] as number), 0) / n;
  if (objectiveOf(objective).pairedTest === "mcnemar") {
    // The objective's outcome is pass or fail: the pairing module's table and exact McNemar on its discordant pairs.
    const { table, mcnemar } = pairedOutcome(pairs, (score) => (value(score) as number) > 0);
    // One-sided: half the two-sided exact p when the proposal is ahead.
    return { p_value: table.secondOnly > table.firstOnly ? mcnemar.p_value / 2 : 1, difference, n };
  }
  if (n === 0) return { p_value: 1, difference, n: 0 };
  const boot = pairedBootstrapMeanDifference(ys, xs, {
    seed: draws.seed,
    path: ["acceptance", draws.round, draws.proposal, draws.look],
    resamples: 2000,
  });
  // One-sided: the two-sided p halves to the share of resamples at or below zero when the proposal is ahead.
  return { p_value: boot.mean_difference > 0 ? boot.p_value / 2 : 1, difference, n };
}

function fmt(value: number): string {
  return value.toFixed(4);
}

/** The step after a paired test: accept, reject, call it indecisive, or ask for one more repeat of both arms. */
export type PairedStep = Verdict | "more";

/**
 * A close call is a proposal ahead of the incumbent whose p-value is within 3α: it earns extra repeats (up to the
 * limit), and is `indecisive` — stored apart from `rejected` — if it still does not clear α.
 */
export function pairedStep(test: PairedTest, alpha: number, extraUsed: number, maxExtra: number): PairedStep {
  if (test.difference > 0 && test.p_value <= alpha) return "accepted";
  const close = test.difference > 0 && test.p_value <= Math.min(0.5, 3 * alpha);
  if (!close) return "rejected";
  return extraUsed < maxExtra ? "more" : "indecisive";
}

/**
 * The cheap screen: a proposal evaluated on a subset of the search tasks may be rejected early when it trails the
 * incumbent on that subset by more than `rejectBelow`. It can only reject or let the full evaluation go on; it never
 * accepts.
 */
export function screenStep(
  proposalSubsetScore: number,
  incumbentSubsetScore: number,
  rejectBelow: number,
): "reject" | "continue" {
  return proposalSubsetScore < incumbentSubsetScore - rejectBelow ? "reject" : "continue";
}
