import { join } from "node:path";
import { HsearchError } from "../core";
import { diff } from "../git";
import type { Comparison } from "../report";
import { objectiveDelta, storedComparisons } from "../report";
import type { PairedDelta } from "../scoring";
import { candidateName, openRunStore, type RunStore, resolveCandidate } from "../store";
import type { CandidateRecord, RejectedProposal } from "../store/types";
import { locateRun, storedConfig } from "./locate-run";

/** A candidate as `hsearch diff` heads it: its verdict, score against its parent's, and the harness diff. */
export interface DiffedCandidate {
  candidate: CandidateRecord;
  /** seed, r4p1 … (the name every command takes). */
  name: string;
  /** seed, accepted, or the verdict (state) it ended with. */
  verdict: string;
  parentScore: number | null;
  /** The objective paired over the tasks both scored, with its 95% interval; null without a parent or objective. */
  delta: PairedDelta | null;
}

/** What `hsearch diff` shows: two candidates, each proposal against its parent, or why there is nothing. */
export type RunDiff =
  | { kind: "pair"; from: DiffedCandidate; to: DiffedCandidate; comparisons: Comparison[]; diff: string }
  | { kind: "proposals"; proposals: (DiffedCandidate & { diff: string })[] }
  /** An existing round with nothing to diff is an answer, not bad input: the proposals that became no commit. */
  | { kind: "none"; failures: RejectedProposal[] };

export interface DiffOptions {
  cwd: string;
  /** Only this round's proposals (and with it, only this proposal). */
  round?: number;
  proposal?: number;
  /** Two candidates instead (seed, incumbent, selected, r4p1 or a commit prefix): both or neither. */
  from?: string;
  to?: string;
}

/** The git diff of each proposal against its parent, or of two candidates with their outcomes (`hsearch diff`). */
export async function diffRun(target: string, options: DiffOptions): Promise<RunDiff> {
  const store = openRunStore(locateRun(target, options.cwd), { readonly: true });
  try {
    // The stored config is checked, so an edited one is one clear error.
    if (store.getRun()) storedConfig(store);
    const repo = join(store.paths.dir, "harness");
    if (options.from !== undefined && options.to !== undefined) {
      const before = resolveCandidate(store, options.from, { field: "--from" });
      const after = resolveCandidate(store, options.to, { field: "--to" });
      return {
        kind: "pair",
        from: described(store, before),
        to: described(store, after),
        comparisons: storedComparisons(store, before.commit, after.commit),
        diff: await diff(repo, after.commit, before.commit),
      };
    }
    const rounds = store.listRounds();
    const { round, proposal } = options;
    if (round !== undefined && !rounds.some((r) => r.round === round))
      throw new HsearchError(
        "not_found",
        `run ${target} has no round ${round} (rounds ${rounds[0]?.round ?? 0}–${rounds[rounds.length - 1]?.round ?? 0})`,
        { field: "round" },
      );
    const candidates = store
      .listCandidates()
      .filter((c) => c.parent !== null)
      .filter((c) => round === undefined || c.round === round)
      .filter((c) => proposal === undefined || c.proposal === proposal)
      .sort((a, b) => a.round - b.round || a.proposal - b.proposal);
    if (candidates.length === 0)
      return {
        kind: "none",
        failures: store
          .searchView()
          .rejectedProposals()
          .filter((f) => f.commit === null && (round === undefined || f.round === round)),
      };
    const proposals: (DiffedCandidate & { diff: string })[] = [];
    for (const candidate of candidates)
      proposals.push({
        ...described(store, candidate),
        diff: await diff(repo, candidate.commit, candidate.parent ?? undefined),
      });
    return { kind: "proposals", proposals };
  } finally {
    store.close();
  }
}

function described(store: RunStore, c: CandidateRecord): DiffedCandidate {
  const accepted = store.listRounds().some((r) => r.accepted_commit === c.commit);
  const run = store.getRun();
  return {
    candidate: c,
    name: candidateName(c),
    verdict: c.round === 0 ? "seed" : accepted ? "accepted" : (c.verdict ?? c.state),
    parentScore: (c.parent ? store.getCandidate(c.parent)?.score : undefined) ?? null,
    delta: c.parent && run ? objectiveDelta(store, run, c.parent, c.commit) : null,
  };
}
