/**
 * What every viewer page shares: the navigation bar and the names of candidates and purposes (one module, so the
 * page renderers do not import one another in a circle).
 */
import type { CandidateRecord, Purpose, RunRecord } from "../../store/types";
import { type Html, html } from "../html/html";

export function viewerNav(run: RunRecord): Html {
  if (run.kind !== "search")
    return html`<nav class="top"><strong>hsearch view</strong><a href="/">${run.kind === "eval" ? "evaluation" : "probe"}</a><a href="/#episodes">episodes</a><a href="/harness">harness</a><span>${run.kind === "eval" ? "evaluation" : "probe"} ${run.id} · <span class="badge ${run.state}">${run.state}</span></span></nav>`;
  return html`<nav class="top"><strong>hsearch view</strong><a href="/">report</a><a href="/candidates">candidates</a><span>run ${run.id} · <span class="badge ${run.state}">${run.state}</span></span></nav>`;
}

export const PURPOSE_LABEL: Record<Purpose, string> = {
  search: "search",
  heldout: "held-out",
  independent: "independent",
  diagnostic: "held-out diagnostic",
};

export function candidateId(candidate: CandidateRecord): string {
  return candidate.round === 0 ? "seed" : `r${candidate.round}p${candidate.proposal}`;
}
