/**
 * One resolver for every place a candidate is asked for (`diff --from/--to`, `export --candidate`, `digest
 * --candidate`, the viewer's `/compare/A/B` and `/candidates/X`, `hsearch compare`): `seed`, `incumbent`,
 * `selected`, `r<round>p<proposal>` and a commit prefix of at least 4 hex digits. An unknown name or an ambiguous
 * prefix is not_found with the names that are valid, so a user can pick one.
 */
import { HsearchError } from "../core";
import type { CandidateRecord } from "./records";
import type { RunReader } from "./run-reader";
import { incumbentOf } from "./run-status";

/** The short name of a candidate: `seed` for round 0's first, `r<round>p<proposal>` for a proposal. */
export function candidateName(candidate: CandidateRecord): string {
  return candidate.round === 0 && candidate.parent === null
    ? "seed"
    : `r${candidate.round}p${candidate.proposal}`;
}

/** The names a run accepts, for an error message: roles first, then proposals (elided when many), then prefixes. */
export function validCandidateNames(store: RunReader): string {
  const run = store.getRun();
  const candidates = store.listCandidates();
  const roles = ["seed", ...(run?.kind === "search" ? ["incumbent", "selected"] : [])];
  const proposals = candidates.map(candidateName).filter((name) => name !== "seed");
  const listed =
    proposals.length <= 12
      ? proposals
      : [...proposals.slice(0, 6), `… (${proposals.length - 9} more) …`, ...proposals.slice(-3)];
  return [...roles, ...listed, "or a commit prefix of 4 or more hex digits"].join(", ");
}

export interface ResolveOptions {
  /** The flag or place the name was given in, for the error ("--from", "candidate"). */
  field?: string;
}

export function resolveCandidate(
  store: RunReader,
  name: string,
  options: ResolveOptions = {},
): CandidateRecord {
  const run = store.getRun();
  const where = run ? `run ${run.id}` : store.paths.dir;
  const fail = (why: string): never => {
    throw new HsearchError("not_found", `${why}; valid names: ${validCandidateNames(store)}`, {
      field: options.field,
    });
  };
  const wanted = name.trim().toLowerCase();
  const candidates = store.listCandidates();
  const byCommit = (commit: string | null) => (commit ? store.getCandidate(commit) : undefined);
  const isSearch = run?.kind === "search";
  if (wanted === "seed") {
    const seed = candidates.find((c) => c.round === 0 && c.parent === null) ?? candidates[0];
    return seed ?? fail(`${where} has no candidate yet`);
  }
  if (wanted === "incumbent" && isSearch)
    return byCommit(incumbentOf(store.listRounds())) ?? fail(`${where} has no incumbent yet`);
  if (wanted === "selected" && isSearch) {
    if (run.state !== "finished")
      return fail(
        `${where} has no selected harness: it is ${run.state}, and only a finished run selects one`,
      );
    return byCommit(incumbentOf(store.listRounds())) ?? fail(`${where} has no selected harness`);
  }
  const proposal = /^r(\d+)p(\d+)$/.exec(wanted);
  if (proposal) {
    const [round, index] = [Number(proposal[1]), Number(proposal[2])];
    const found = candidates.find((c) => c.round === round && c.proposal === index && c.parent !== null);
    return found ?? fail(`${where} has no candidate ${name} (round ${round} proposal ${index})`);
  }
  if (/^[0-9a-f]{4,64}$/.test(wanted)) {
    const matches = candidates.filter((c) => c.commit.startsWith(wanted));
    if (matches.length === 1) return matches[0] as CandidateRecord;
    if (matches.length > 1)
      return fail(
        `'${name}' matches ${matches.length} candidates of ${where} (${matches.map((c) => `${candidateName(c)} ${c.commit.slice(0, 12)}`).join(", ")}): give more digits`,
      );
    return fail(`no candidate of ${where} has a commit starting with ${name}`);
  }
  return fail(`no candidate '${name}' in ${where}`);
}
