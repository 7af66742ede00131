import { HsearchError } from "../core";
import type { LearntRejection } from "../models";
import { addRoleUsage, MODEL_ROLES, type ModelRole, type RoleUsage } from "../models";
import type { ObjectiveName } from "../scoring";
import { summarize } from "../scoring";
import { type CandidateRecord, type RoundRecord, RUN_KIND_LABEL, type UsageTotal } from "./records";
import { eventsOf, lastEventOf } from "./run-events";
import type { RunReader } from "./run-reader";

/**
 * The status object of a run (`hsearch status --json`, `hsearch run --json`): rounds with their proposals and
 * verdicts, the incumbent, the selected harness, held-out results and usage. Read-only.
 */
export interface ProposalStatus {
  id: string;
  proposal: number;
  commit: string;
  branch: string;
  /** The candidate it was proposed from (under `strategy: pareto`, any member of the front); null for the seed. */
  parent: string | null;
  rationale: string;
  score: number | null;
  accepted: boolean;
  state: string;
  /** accepted, rejected, indecisive or screened_out; null for the seed and for proposals never judged. */
  verdict: string | null;
  rejected_reason: string | null;
  /**
   * Search episodes planned and scored (the rest met infrastructure errors). A candidate whose evaluation did not
   * finish (the run failed on infrastructure errors, or was stopped) counts the episodes stored so far; null before
   * any is stored.
   */
  n_total: number | null;
  n_scored: number | null;
  /** Infrastructure errors by class, and scored episodes ended by the context window (the agent's failures). */
  infra_errors: Record<string, number>;
  context_overflow: number;
}

export interface RoundStatus {
  round: number;
  incumbent_before: string;
  incumbent_after: string | null;
  accepted: string | null;
  finished: boolean;
  proposals: ProposalStatus[];
  /** Proposals that never became a commit (refused edits, invalid meta-agent replies). */
  failures: Array<{ proposal: number; rationale: string; reason: string }>;
  /** The operators proposer found fewer new edits than `proposals_per_round` around this round's parent. */
  exhausted: boolean;
}

export interface RunStatus {
  run: string;
  name: string;
  state: string;
  /** Why the run stopped early: the failure, or which budget limit was reached (`budget_exhausted`). */
  error: string | null;
  /**
   * A finished run that ended before its last round: `early_stop` (patience rounds without an accepted proposal) or
   * `exhausted` (greedy with the operators, after a round in which they found no new edit), and the round it did not
   * start.
   */
  stopped_early: { reason: "early_stop" | "exhausted"; round: number } | null;
  objective: ObjectiveName;
  seed: number;
  created_at: string;
  ended_at: string | null;
  rounds: RoundStatus[];
  incumbent: { commit: string; score: number | null } | null;
  selected: { commit: string; score: number | null } | null;
  heldout: Record<string, Record<string, unknown>>;
  /** Parameters a model's provider rejected, left out of (or renamed in) its later calls (models/parameter-fallback.ts). */
  rejected_parameters: LearntRejection[];
  /**
   * Every role's calls, tokens and cost over the run's sessions: billed calls, request-cache hits apart (`cached_calls`,
   * not billed), provider prompt-cache tokens; `usd` null when a model has no price (unknown, not 0).
   */
  usage: RoleUsage & {
    rollouts: number;
    /** Of `rollouts`, those whose every model call the request cache answered: free, and not counted by max_rollouts. */
    cached_rollouts: number;
    /** Billed calls (the same as `calls`; the name older readers know). */
    model_calls: number;
    by_role: Record<ModelRole, RoleUsage>;
    /** The same per role and model. */
    by_model: UsageTotal[];
  };
}

/** Usage rows (role, model) as one total with its parts by role and by model. */
export function usageOf(
  rows: readonly UsageTotal[],
): Omit<RunStatus["usage"], "rollouts" | "cached_rollouts"> {
  const strip = (row: UsageTotal): RoleUsage => {
    const { role: _role, model: _model, ...usage } = row;
    return usage;
  };
  const byRole = Object.fromEntries(
    MODEL_ROLES.map((role) => [role, addRoleUsage(rows.filter((r) => r.role === role).map(strip))]),
  ) as Record<ModelRole, RoleUsage>;
  const total = addRoleUsage(rows.map(strip));
  return { ...total, model_calls: total.calls, by_role: byRole, by_model: [...rows] };
}

/**
 * Why the acceptance rule judged a candidate as it did: for a refused one its stored reason, for an accepted one
 * the reason its round's decision recorded (`p = 0.0040 ≤ α = 0.0125` when `paired` computed a test, the scores
 * under `greater`), which the candidate row does not keep. Null for the seed and for candidates never judged.
 */
export function verdictReason(candidate: CandidateRecord, round: RoundRecord | undefined): string | null {
  if (candidate.rejected_reason) return candidate.rejected_reason;
  const verdicts = round?.decision?.verdicts;
  if (!Array.isArray(verdicts)) return null;
  for (const verdict of verdicts as unknown[]) {
    if (verdict === null || typeof verdict !== "object") continue;
    const { commit, reason } = verdict as { commit?: unknown; reason?: unknown };
    if (commit === candidate.commit && typeof reason === "string") return reason;
  }
  return null;
}

/**
 * The episode counts of a candidate: its stored summary, or, when its evaluation did not finish (no summary: the
 * run failed on too many infrastructure errors, or was stopped), what its stored search rollouts say — they and
 * their errors are in run.db even though no score was. Null counts when neither exists (older runs stored no
 * summary: counts unknown, nothing left out).
 */
function candidateCounts(store: RunReader, candidate: CandidateRecord) {
  if (candidate.summary !== null) return episodeCounts(candidate.summary);
  const scores = store.listRollouts(candidate.commit, "search").map((rollout) => rollout.scores);
  return episodeCounts(scores.length > 0 ? { ...summarize(scores) } : null);
}

/** The episode counts of a stored summary. */
function episodeCounts(
  summary: Record<string, unknown> | null,
): Pick<ProposalStatus, "n_total" | "n_scored" | "infra_errors" | "context_overflow"> {
  const s = (summary ?? {}) as {
    n_total?: number;
    n_scored?: number;
    infra_errors?: Record<string, number>;
    context_overflow?: number;
  };
  return {
    n_total: s.n_total ?? null,
    n_scored: s.n_scored ?? null,
    infra_errors: s.infra_errors ?? {},
    context_overflow: s.context_overflow ?? 0,
  };
}

export function runStatus(store: RunReader): RunStatus {
  const run = store.getRun();
  if (!run) throw new Error("no run recorded");
  if (run.kind !== "search" || run.objective === null)
    throw new HsearchError(
      "bad_input",
      `${store.paths.dir} holds ${RUN_KIND_LABEL[run.kind]}, not a search run`,
      { file: store.paths.dir },
    );
  const objective = run.objective;
  const candidates = store.listCandidates();
  const rounds = store.listRounds();
  const failures = store.listProposalFailures();
  const events = store.listEvents();
  const db = store.paths.db;
  const exhaustedRounds = new Set(eventsOf(events, "operators_exhausted", db).map((e) => e.data.round));
  const stop = [lastEventOf(events, "early_stop", db), lastEventOf(events, "exhausted_stop", db)]
    .filter((e) => e !== null)
    .sort((a, b) => b.id - a.id)[0];
  const roundStatus: RoundStatus[] = rounds.map((round) => ({
    round: round.round,
    incumbent_before: round.incumbent_before,
    incumbent_after: round.incumbent_after,
    accepted: round.accepted_commit,
    finished: round.ended_at !== null,
    proposals: candidates
      .filter((c) => c.round === round.round)
      .sort((a, b) => a.proposal - b.proposal)
      .map((c) => ({
        id: c.round === 0 ? "seed" : `r${c.round}p${c.proposal}`,
        proposal: c.proposal,
        commit: c.commit,
        branch: c.branch,
        parent: c.parent,
        rationale: c.rationale,
        score: c.score,
        accepted: round.accepted_commit === c.commit,
        state: c.state,
        verdict: c.verdict,
        rejected_reason: c.rejected_reason,
        ...candidateCounts(store, c),
      })),
    failures: failures
      .filter((f) => f.round === round.round)
      .map((f) => ({ proposal: f.proposal, rationale: f.rationale, reason: f.reason ?? "" })),
    exhausted: exhaustedRounds.has(round.round),
  }));
  const incumbentCommit = incumbentOf(rounds);
  const scoreOf = (commit: string | null) => (commit ? (store.getCandidate(commit)?.score ?? null) : null);
  const heldout: RunStatus["heldout"] = {};
  for (const evaluation of store.listEvaluations()) {
    if (evaluation.purpose === "diagnostic") continue;
    const role = evaluation.candidate === incumbentCommit && run.state === "finished" ? "selected" : "seed";
    heldout[role] ??= { commit: evaluation.candidate };
    (heldout[role] as Record<string, unknown>)[evaluation.purpose] = evaluation.summary;
  }
  // Per-round diagnostics: the held-out evaluation of each round's incumbent (one row per incumbent commit), with
  // its independent evaluation under `independent`.
  const diagnosticOf = (split: "heldout" | "independent") =>
    new Map(
      store
        .listEvaluations()
        .filter((e) => e.purpose === "diagnostic" && e.split === split)
        .map((e) => [e.candidate, e.summary]),
    );
  const heldoutOf = diagnosticOf("heldout");
  const independentOf = diagnosticOf("independent");
  const perRound = rounds
    .filter((r) => r.round > 0 && r.incumbent_after && heldoutOf.has(r.incumbent_after))
    .map((r) => {
      const commit = r.incumbent_after as string;
      const independent = independentOf.get(commit);
      return [
        `round_${r.round}`,
        { commit, ...heldoutOf.get(commit), ...(independent ? { independent } : {}) },
      ];
    });
  if (perRound.length > 0) heldout.diagnostics = Object.fromEntries(perRound);
  return {
    run: run.id,
    name: run.name,
    state: run.state,
    error: run.error,
    stopped_early:
      stop && run.state === "finished"
        ? {
            reason: stop.kind === "early_stop" ? "early_stop" : "exhausted",
            round: stop.data.round,
          }
        : null,
    objective,
    seed: run.seed,
    created_at: run.created_at,
    ended_at: run.ended_at,
    rounds: roundStatus,
    incumbent: incumbentCommit ? { commit: incumbentCommit, score: scoreOf(incumbentCommit) } : null,
    selected:
      run.state === "finished" && incumbentCommit
        ? { commit: incumbentCommit, score: scoreOf(incumbentCommit) }
        : null,
    heldout,
    rejected_parameters: store.rejectedParameters(),
    usage: {
      rollouts: store.countRollouts(),
      cached_rollouts: store.countCachedRollouts(),
      ...usageOf(store.usageTotals()),
    },
  };
}

/** The incumbent after the last round that named one (the seed before any round ended); null before round 0. */
export function incumbentOf(rounds: readonly RoundRecord[]): string | null {
  const last = [...rounds].reverse().find((r) => r.incumbent_after !== null);
  return last?.incumbent_after ?? rounds[0]?.incumbent_before ?? null;
}

/** Why a finished run ended before its last round, as one sentence (status and the report). */
export function describeStoppedEarly({ reason, round }: NonNullable<RunStatus["stopped_early"]>): string {
  return reason === "early_stop"
    ? `stopped before round ${round}: early_stop.patience rounds in a row without an accepted proposal`
    : `stopped before round ${round}: the operators have no new edit around the incumbent, so every later round would be empty (strategy: pareto proposes from other members of its front)`;
}
