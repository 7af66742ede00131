/**
 * One side of a comparison, read from a run or an evaluation directory and closed again: the harness compared (a
 * search's selection, an evaluation's harness, or a candidate named with --candidate-a/-b), its episodes by split,
 * the config, and what the run spent. A directory that holds no run, a probe, or a search with no selection yet
 * is bad input naming it.
 */
import { HsearchError } from "../core";
import { readTree } from "../git";
import {
  type CandidateRecord,
  candidateName,
  openRunStore,
  RUN_KIND_LABEL,
  type RunStore,
  resolveCandidate,
  runPaths,
} from "../store";
// The side's public shape takes its record types from the records alone, so no declaration reaches the database.
import type { Purpose, RolloutRecord, RunKind } from "../store/types";

export interface Spent {
  /** Rounds run after the seed's (a search); 0 for an evaluation. */
  rounds: number;
  candidates: number;
  /** Rollouts (episodes) stored, by split, all candidates. */
  rollouts: Partial<Record<Purpose, number>>;
  usd: number;
  active_ms: number;
}

export interface RunSide {
  dir: string;
  id: string;
  name: string;
  kind: RunKind;
  state: string;
  objective: string | null;
  config: unknown;
  /** The harness compared: its commit and name in its own run (selected, seed, r3p1 …). */
  commit: string;
  candidate: string;
  /** How the harness was chosen: "selected", "evaluated" or the name given. */
  role: string;
  score: number | null;
  episodes: Partial<Record<Purpose, RolloutRecord[]>>;
  files: Record<string, string>;
  spent: Spent;
}

/** The splits a comparison pairs: a search's final held-out evaluations; every split an evaluation ran. */
const SEARCH_SPLITS: readonly Purpose[] = ["heldout", "independent"];
const EVAL_SPLITS: readonly Purpose[] = ["search", "heldout", "independent"];

function pick(
  store: RunStore,
  dir: string,
  name: string | undefined,
): { candidate: CandidateRecord; role: string } {
  const run = store.getRun();
  if (!run)
    throw new HsearchError("bad_input", `${dir} holds no run yet (run.db records none)`, { file: dir });
  if (run.kind === "probe_beliefs" || run.kind === "probe_challenge")
    throw new HsearchError(
      "bad_input",
      `${dir} holds ${RUN_KIND_LABEL[run.kind]}: compare takes search runs and evaluations`,
      { file: dir },
    );
  if (name !== undefined)
    return { candidate: resolveCandidate(store, name, { field: "candidate" }), role: name };
  if (run.kind === "eval") return { candidate: resolveCandidate(store, "seed"), role: "evaluated" };
  if (run.state !== "finished")
    throw new HsearchError(
      "bad_input",
      `run ${run.id} in ${dir} has no selected harness yet (it is ${run.state}); wait for it to finish, or name a candidate with --candidate-a/--candidate-b`,
      { file: dir },
    );
  return { candidate: resolveCandidate(store, "selected"), role: "selected" };
}

export async function loadSide(dir: string, candidateNameGiven?: string): Promise<RunSide> {
  const store = openRunStore(dir, { readonly: true });
  try {
    const run = store.getRun();
    const { candidate, role } = pick(store, dir, candidateNameGiven);
    const kind = (run as NonNullable<typeof run>).kind;
    const splits = kind === "search" ? SEARCH_SPLITS : EVAL_SPLITS;
    const episodes: RunSide["episodes"] = {};
    for (const purpose of splits) {
      const rollouts = store.listRollouts(candidate.commit, purpose);
      if (rollouts.length > 0) episodes[purpose] = rollouts;
    }
    const rollouts: Spent["rollouts"] = {};
    for (const purpose of ["search", "heldout", "independent", "diagnostic"] as const) {
      const count = store.countRollouts(purpose);
      if (count > 0) rollouts[purpose] = count;
    }
    const rounds = store.listRounds();
    const record = run as NonNullable<typeof run>;
    return {
      dir,
      id: record.id,
      name: record.name,
      kind,
      state: record.state,
      objective: record.objective,
      config: record.config,
      commit: candidate.commit,
      candidate: candidateName(candidate),
      role,
      score: candidate.score,
      episodes,
      files: await readTree(runPaths(dir).harness, candidate.commit),
      spent: {
        rounds: rounds.filter((r) => r.round > 0).length,
        candidates: store.listCandidates().length,
        rollouts,
        usd: store.totalUsd(),
        active_ms: store.activeMs(),
      },
    };
  } finally {
    store.close();
  }
}
