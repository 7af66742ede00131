import type { SearchDeps } from "../loop/search-deps";
import type { ProposalVerdict } from "./verdicts";

/** Store a verdict on the candidate and as an event. */
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
  deps.store.logEvent({ kind: "verdict", data: { round, ...verdict } });
}
