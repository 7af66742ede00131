/** The round table: every proposal with its score, the change against the incumbent it was proposed from, its
 * verdict and its rationale (and the reason of the verdict). */
import type { PairedDelta } from "../../../scoring";
import type { RunStatus } from "../../../store/types";
import type { Rate } from "../../model/compare";
import { fmtDelta, fmtRate, shortSha } from "../format";
import { type Html, html } from "../html";
import type { Links } from "../page";
import { pairedDeltaCell, rateCell } from "./comparison";

type Round = RunStatus["rounds"][number];
type Proposal = Round["proposals"][number];

export function proposalVerdict(proposal: Proposal, round: Round): string {
  if (round.round === 0) return "seed";
  if (proposal.accepted) return "accepted";
  if (proposal.verdict) return proposal.verdict.replace("_", " ");
  if (proposal.state === "evaluated" || proposal.state === "pending")
    return round.finished ? "not judged" : "pending";
  return proposal.state.replace("_", " ");
}

/**
 * `episodes`: each candidate's search episodes passed (strict SA on blocked, solve on feasible) as k/n with a 95%
 * interval, shown under its score. `deltas`: each proposal's objective against its parent's, paired over tasks, with a
 * 95% interval (coloured only when it excludes 0).
 */
export function renderRoundTable(
  status: RunStatus,
  links?: Links,
  episodes: ReadonlyMap<string, Rate> = new Map(),
  deltas: ReadonlyMap<string, PairedDelta> = new Map(),
): Html {
  if (status.rounds.length === 0) return html`<p class="muted">No round has started yet.</p>`;
  const scoreOf = new Map<string, number | null>();
  const idOf = new Map<string, string>();
  for (const round of status.rounds)
    for (const p of round.proposals) {
      scoreOf.set(p.commit, p.score);
      idOf.set(p.commit, p.id);
    }
  const parentCell = (parent: string | null) => {
    if (parent === null) return html`<td class="muted">–</td>`;
    const label = idOf.get(parent) ?? shortSha(parent);
    return html`<td class="parent">${links ? html`<a href="${links.candidate(parent)}">${label}</a>` : label}</td>`;
  };
  // One score per row: the objective above, and under it the episodes passed as k/n with their interval (the same
  // value under the joint objective; under SA-only the score counts blocked episodes only).
  const rateOf = (commit: string) => {
    const rate = episodes.get(commit);
    return rate && rate.n > 0 ? html`<div class="kn-line">${rateCell(rate, { value: false })}</div>` : "";
  };
  const deltaOf = (p: Proposal, parentScore: number | null) => {
    const paired = deltas.get(p.commit);
    if (paired)
      return html`<td class="num delta" data-sort="${String(paired.delta)}">${pairedDeltaCell(paired)}</td>`;
    return html`<td class="num muted">${fmtDelta(p.score, parentScore)}</td>`;
  };
  const rows: Html[] = [];
  for (const round of status.rounds) {
    const before = scoreOf.get(round.incumbent_before) ?? null;
    let first = true;
    const cls = (extra = "") => {
      const value = [first ? "round-start" : "", extra].filter(Boolean).join(" ");
      first = false;
      return value;
    };
    for (const p of round.proposals) {
      const verdict = proposalVerdict(p, round);
      const commit = links
        ? html`<a href="${links.candidate(p.commit)}">${shortSha(p.commit)}</a>`
        : shortSha(p.commit);
      const reason = p.rejected_reason ? html`<div class="reason">${p.rejected_reason}</div>` : "";
      rows.push(html`<tr class="${cls(p.accepted && round.round > 0 ? "accepted-row" : "")}">
<td class="num">${round.round}</td><td>${p.id}</td>${parentCell(p.parent)}<td class="mono">${commit}</td>
<td class="num">${fmtRate(p.score)}${rateOf(p.commit)}</td>${deltaOf(p, round.round === 0 ? null : p.parent ? (scoreOf.get(p.parent) ?? before) : before)}
<td><span class="badge ${verdict.replace(" ", "-")}">${verdict}</span></td>
<td class="rationale">${p.rationale}${reason}</td></tr>`);
    }
    for (const failure of round.failures)
      rows.push(html`<tr class="${cls()}"><td class="num">${round.round}</td><td>r${round.round}p${failure.proposal}</td>
<td class="muted">–</td><td class="muted">–</td><td class="num">–</td><td></td><td><span class="badge invalid">refused</span></td>
<td class="rationale">${failure.rationale}<div class="reason">${failure.reason}</div></td></tr>`);
    if (round.proposals.length === 0 && round.failures.length === 0)
      rows.push(html`<tr class="${cls()}"><td class="num">${round.round}</td><td class="muted">–</td><td></td><td></td><td></td><td></td>
<td><span class="badge">${round.finished ? "none" : "running"}</span></td>
<td class="rationale muted">${round.finished ? "no new proposal from this incumbent" : "proposals are being made"}</td></tr>`);
  }
  return html`<table class="rounds">
<thead><tr><th class="num">round</th><th>proposal</th><th>parent</th><th>commit</th><th class="num">score <span class="muted small">(episodes passed)</span></th><th class="num">Δ parent</th><th>verdict</th><th>rationale</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}
