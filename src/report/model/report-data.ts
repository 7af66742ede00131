/**
 * Everything the report shows, read from a run directory: the status object, the seed and final harnesses' results
 * on every split, the diffs of accepted proposals and a few example trajectories. Read-only; works on a run that is
 * still running or failed (what does not exist yet is null or empty).
 */
import { HsearchError } from "../../core";
import { diff, readTree } from "../../git";
import { type PairedDelta, pairedObjectiveDelta } from "../../scoring";
import { blockedModesOf } from "../../search";
import { type RunStatus, runStatus, verdictReason } from "../../store";
import type { EventRecord, Purpose, RunReader, RunRecord } from "../../store/types";
import {
  type DiagnosticCandidate,
  type DiagnosticRound,
  FAILURE_MODES,
  type FailureModeKey,
  type MetricValues,
} from "../html/diagnostics-plot";
import { num } from "../html/format";
import type { PlotRound, PlotVerdict } from "../html/score-plot";
import { summarizeChange } from "./change-summary";
import { type Comparison, passed, type Rate, wilson } from "./compare";
import { storedComparisons } from "./comparisons";
import { type Episode, pickExamples, type TrajectoryExample } from "./examples";
import { computeAlways, type Memo, rememberPromises } from "./memo";
import { type RunMetricTable, runMetricModules, runMetricTable } from "./run-metrics";
import { blockedMetric, blockedRates, feasibleMetric, type SummaryView, summaryView } from "./summary-view";

export interface HarnessResults {
  role: "seed" | "selected" | "incumbent";
  commit: string;
  search: SummaryView | null;
  heldout: SummaryView | null;
  independent: SummaryView | null;
}

export interface AcceptedChange {
  round: number;
  id: string;
  commit: string;
  parent: string | null;
  rationale: string;
  score: number | null;
  parentScore: number | null;
  /** score − parentScore as the paired mean over the tasks both scored, with its 95% interval. */
  delta: PairedDelta | null;
  /** The unified diff against the parent, or why it could not be read. */
  diff: { text: string } | { error: string };
  /** Against the parent on the search split: per suite and family, flips, McNemar. */
  comparisons: Comparison[];
  /** One line per change (`protocols.self_check.enabled: false → true`, `+ rule …`). */
  summary: string[];
  /** The acceptance verdict's reason as stored (the paired test's p-value when `paired` computed one). */
  reason: string | null;
}

/** A proposal being evaluated now: rollouts done of the incumbent's count, and a linear ETA. */
export interface InProgress {
  id: string;
  commit: string;
  done: number;
  total: number;
  etaSeconds: number | null;
}

export interface ReportData {
  /** The run directory, for the commands the report prints. */
  runDir: string;
  run: RunRecord;
  status: RunStatus;
  seed: HarnessResults | null;
  /** The selected harness of a finished run, else the incumbent so far. */
  final: HarnessResults | null;
  plot: PlotRound[];
  accepted: AcceptedChange[];
  /** Seed against the final harness on every split, by suite and family. */
  comparisons: Comparison[];
  inProgress: InProgress[];
  diagnostics: { candidates: DiagnosticCandidate[]; rounds: DiagnosticRound[] };
  /** Each evaluated candidate's search episodes passed (the objective's outcome), k/n with a 95% interval. */
  episodes: Record<string, Rate>;
  /** Each proposal's search objective against its parent's (paired over tasks, 95% interval), by commit. */
  deltas: Record<string, PairedDelta>;
  examples: TrajectoryExample[];
  events: EventRecord[];
  /** The run's own metrics (its config's metric modules), null when it names none. */
  metrics: RunMetricTable | null;
  generatedAt: string;
}

/** The diff of a commit against its parent; the viewer passes a cached one (commits never change). */
export type DiffSource = (commit: string, parent: string | null) => Promise<string>;

export interface LoadOptions {
  now?: Date;
  diffs?: DiffSource;
  /** The viewer's memory of derived values (comparisons, paired Δs, examples, change summaries); default none. */
  memo?: Memo;
}

export function gitDiffs(repo: string): DiffSource {
  return (commit, parent) => diff(repo, commit, parent ?? undefined);
}

/** Remembers diffs by (commit, parent): a live viewer runs git once per diff. */
export function cachedDiffs(source: DiffSource): DiffSource {
  return rememberPromises((commit, parent) => `${commit}:${parent ?? ""}`, source);
}

export async function loadReportData(store: RunReader, options: LoadOptions = {}): Promise<ReportData> {
  const run = store.getRun();
  if (!run)
    throw new HsearchError("not_found", `no run recorded in ${store.paths.db}`, { file: store.paths.db });
  const status = runStatus(store);
  const diffs = options.diffs ?? gitDiffs(store.paths.harness);
  const memo = options.memo ?? computeAlways;
  const seedCommit = status.rounds[0]?.proposals[0]?.commit ?? null;
  const finalCommit = (status.selected ?? status.incumbent)?.commit ?? null;
  const finalRole = status.selected ? "selected" : "incumbent";
  const metrics = runMetricTable(store, status, await runMetricModules(store));
  return {
    run,
    runDir: store.paths.dir,
    status,
    seed: seedCommit ? harnessResults(store, seedCommit, "seed") : null,
    final: finalCommit ? harnessResults(store, finalCommit, finalRole) : null,
    plot: plotRounds(store, status),
    accepted: await acceptedChanges(store, status, diffs, memo),
    comparisons:
      seedCommit && finalCommit && seedCommit !== finalCommit
        ? memo("comparisons", [seedCommit, finalCommit], () =>
            storedComparisons(store, seedCommit, finalCommit),
          )
        : [],
    inProgress: run.state === "running" ? inProgress(store, status, options.now ?? new Date()) : [],
    diagnostics: diagnostics(store, status),
    episodes: episodeRates(store),
    deltas: objectiveDeltas(store, status, memo),
    examples: finalCommit
      ? memo("examples", seedCommit ? [finalCommit, seedCommit] : [finalCommit], () =>
          examplesOf(store, finalCommit, seedCommit),
        )
      : [],
    events: store.listEvents(),
    metrics,
    generatedAt: (options.now ?? new Date()).toISOString(),
  };
}

function harnessResults(store: RunReader, commit: string, role: HarnessResults["role"]): HarnessResults {
  const candidate = store.getCandidate(commit);
  const evaluation = (purpose: "heldout" | "independent") =>
    summaryView(store.getEvaluation(commit, purpose, purpose)?.summary);
  return {
    role,
    commit,
    search: summaryView(candidate?.summary, candidate?.score ?? null),
    heldout: evaluation("heldout"),
    independent: evaluation("independent"),
  };
}

function plotVerdict(proposal: RunStatus["rounds"][number]["proposals"][number], round: number): PlotVerdict {
  if (round === 0) return "seed";
  if (proposal.accepted) return "accepted";
  if (
    proposal.verdict === "rejected" ||
    proposal.verdict === "indecisive" ||
    proposal.verdict === "screened_out" ||
    proposal.verdict === "accepted"
  )
    return proposal.verdict;
  return proposal.state === "rejected" ? "rejected" : "pending";
}

function plotRounds(store: RunReader, status: RunStatus): PlotRound[] {
  // A diagnostic is one row per incumbent (taken when it first held a round): every round it held shows it.
  const heldoutOf = (commit: string | null) =>
    commit ? num(store.getEvaluation(commit, "diagnostic", "heldout")?.summary.objective) : null;
  return status.rounds.map((round) => ({
    round: round.round,
    incumbent:
      round.finished && round.incumbent_after
        ? (store.getCandidate(round.incumbent_after)?.score ?? null)
        : null,
    proposals: round.proposals.map((proposal) => ({
      id: proposal.id,
      score: proposal.score,
      verdict: plotVerdict(proposal, round.round),
    })),
    heldout: heldoutOf(round.finished ? round.incumbent_after : null),
  }));
}

async function acceptedChanges(
  store: RunReader,
  status: RunStatus,
  diffs: DiffSource,
  memo: Memo,
): Promise<AcceptedChange[]> {
  const changes: AcceptedChange[] = [];
  for (const round of status.rounds) {
    if (round.round === 0 || round.accepted === null) continue;
    const candidate = store.getCandidate(round.accepted);
    if (!candidate) continue;
    let text: AcceptedChange["diff"];
    try {
      text = { text: await diffs(candidate.commit, candidate.parent) };
    } catch (error) {
      text = { error: error instanceof Error ? error.message : String(error) };
    }
    changes.push({
      round: round.round,
      id: `r${candidate.round}p${candidate.proposal}`,
      commit: candidate.commit,
      parent: candidate.parent,
      rationale: candidate.rationale,
      score: candidate.score,
      parentScore: candidate.parent ? (store.getCandidate(candidate.parent)?.score ?? null) : null,
      delta: candidate.parent ? memoDelta(store, status, memo, candidate.parent, candidate.commit) : null,
      diff: text,
      comparisons: candidate.parent
        ? memo("comparisons", [candidate.parent, candidate.commit], () =>
            storedComparisons(store, candidate.parent as string, candidate.commit),
          ).filter((c) => c.purpose === "search")
        : [],
      reason: verdictReason(candidate, store.getRound(round.round)),
      summary: await memo(`change-summary:${candidate.commit}:${candidate.parent ?? ""}`, [], () =>
        changeSummary(store.paths.harness, candidate.commit, candidate.parent),
      ),
    });
  }
  return changes;
}

/** The panels' metrics of a stored summary. */
function metricsOf(view: SummaryView | null, objective: number | null): MetricValues {
  const rates = blockedRates(view);
  return {
    objective,
    strict_sa: blockedMetric(rates, "strict_sa"),
    relaxed_sa: blockedMetric(rates, "relaxed_sa"),
    absrec1: blockedMetric(rates, "absrec1"),
    solve: feasibleMetric(view, "solve"),
    false_abstention: feasibleMetric(view, "false_abstention"),
  };
}

/** A candidate's failed blocked search episodes by their first failure mode (the digest's classification). */
function failuresOf(store: RunReader, commit: string): DiagnosticRound["failures"] {
  const blocked = store
    .listRollouts(commit, "search")
    .filter((r) => r.kind === "blocked" && r.scores.kind === "blocked");
  if (blocked.length === 0) return null;
  const modes: Partial<Record<FailureModeKey, number>> = {};
  for (const rollout of blocked) {
    const score = rollout.scores;
    if (score.kind !== "blocked" || score.strict_sa) continue;
    const found = blockedModesOf(rollout.end_reason, score);
    const mode = FAILURE_MODES.find((m) => (found as string[]).includes(m.key))?.key ?? "other";
    modes[mode] = (modes[mode] ?? 0) + 1;
  }
  return { n: blocked.length, modes };
}

/** Every evaluated candidate's search metrics, tokens and cost, and each round's incumbent, for the panels. */
function diagnostics(store: RunReader, status: RunStatus): ReportData["diagnostics"] {
  const accepted = new Set(status.rounds.flatMap((r) => (r.round > 0 && r.accepted ? [r.accepted] : [])));
  const candidates = store
    .listCandidates()
    .filter((c) => c.score !== null)
    .map((c): DiagnosticCandidate => {
      const rollouts = store.listRollouts(c.commit, "search");
      return {
        id: c.round === 0 ? "seed" : `r${c.round}p${c.proposal}`,
        commit: c.commit,
        round: c.round,
        accepted: accepted.has(c.commit),
        metrics: metricsOf(summaryView(c.summary, c.score), c.score),
        tokens: rollouts.reduce((sum, r) => sum + r.input_tokens + r.output_tokens, 0),
        usd: rollouts.reduce((sum, r) => sum + r.usd, 0),
        seconds: evaluationSeconds(rollouts.map((r) => Date.parse(r.created_at))),
      };
    });
  // A diagnostic is one row per incumbent: every round that incumbent held shows it.
  const diagnostic = (commit: string | null, split: "heldout" | "independent") => {
    const summary = commit ? store.getEvaluation(commit, "diagnostic", split)?.summary : undefined;
    const view = summaryView(summary);
    return view ? metricsOf(view, view.objective) : null;
  };
  const rounds = status.rounds.map((r): DiagnosticRound => {
    const incumbent = r.round === 0 ? r.incumbent_before : r.finished ? r.incumbent_after : null;
    return {
      round: r.round,
      incumbent,
      heldout: diagnostic(incumbent, "heldout"),
      independent: diagnostic(incumbent, "independent"),
      failures: incumbent ? failuresOf(store, incumbent) : null,
    };
  });
  return { candidates, rounds };
}

function episodeRates(store: RunReader): Record<string, Rate> {
  const rates: Record<string, Rate> = {};
  for (const candidate of store.listCandidates()) {
    const scored = store
      .listRollouts(candidate.commit, "search")
      .filter((r) => r.scores.kind !== "infra_error");
    if (scored.length > 0) rates[candidate.commit] = wilson(scored.filter(passed).length, scored.length);
  }
  return rates;
}

/** Bootstrap resamples of a Δ's interval: enough for a 95% percentile interval, cheap enough for a live viewer. */
const DELTA_RESAMPLES = 2000;

/** A candidate's search objective against its parent's, paired over the tasks both scored (seeded by the run). */
export function objectiveDelta(
  store: RunReader,
  status: { objective: RunStatus["objective"] | null; seed: number },
  parent: string,
  commit: string,
): PairedDelta | null {
  // Only a search has an objective to compare candidates on.
  if (status.objective === null) return null;
  return pairedObjectiveDelta(
    store.listRollouts(parent, "search"),
    store.listRollouts(commit, "search"),
    status.objective,
    { seed: status.seed, path: [parent, commit], resamples: DELTA_RESAMPLES },
  );
}

/** `objectiveDelta`, remembered while the two candidates' rollouts are unchanged (its bootstrap is the cost). */
function memoDelta(
  store: RunReader,
  status: RunStatus,
  memo: Memo,
  parent: string,
  commit: string,
): PairedDelta | null {
  return memo("delta", [parent, commit], () => objectiveDelta(store, status, parent, commit));
}

/** Every proposal's Δ against its parent, keyed by its commit. */
function objectiveDeltas(store: RunReader, status: RunStatus, memo: Memo): Record<string, PairedDelta> {
  const deltas: Record<string, PairedDelta> = {};
  for (const round of status.rounds)
    for (const p of round.proposals) {
      const parent = p.parent ?? (round.round > 0 ? round.incumbent_before : null);
      const delta = parent ? memoDelta(store, status, memo, parent, p.commit) : null;
      if (delta) deltas[p.commit] = delta;
    }
  return deltas;
}

function evaluationSeconds(times: readonly number[]): number {
  const finite = times.filter(Number.isFinite);
  return finite.length < 2 ? 0 : (Math.max(...finite) - Math.min(...finite)) / 1000;
}

/** The one-line summaries of a commit against its parent; none when the trees cannot be read. */
export async function changeSummary(repo: string, commit: string, parent: string | null): Promise<string[]> {
  try {
    return summarizeChange(parent ? await readTree(repo, parent) : {}, await readTree(repo, commit));
  } catch {
    return [];
  }
}

/**
 * Examples from held-out episodes when the final evaluation exists, else from the search split: picked within each
 * suite, so a mixed run shows terminal trajectories as well as retail ones.
 */
function examplesOf(store: RunReader, commit: string, seed: string | null): TrajectoryExample[] {
  for (const purpose of ["heldout", "search"] as const satisfies readonly Purpose[]) {
    const rollouts = store.listRollouts(commit, purpose);
    if (rollouts.length === 0) continue;
    const suites = [...new Set(rollouts.map((r) => r.suite))].sort();
    const seedRollouts = new Map(
      seed && seed !== commit
        ? store.listRollouts(seed, purpose).map((r) => [`${r.task_id}#${r.repeat}`, r] as const)
        : [],
    );
    const withSeed = (example: TrajectoryExample): TrajectoryExample => {
      const seedRollout = seedRollouts.get(`${example.rollout.task_id}#${example.rollout.repeat}`);
      return seedRollout
        ? {
            ...example,
            seedKey: seedRollout.key,
            seedEpisode: { rollout: seedRollout, trajectory: store.readTrajectory(seedRollout) },
          }
        : example;
    };
    return suites.flatMap((suite) =>
      pickExamples(
        rollouts
          .filter((rollout) => rollout.suite === suite)
          .map((rollout): Episode => ({ rollout, trajectory: store.readTrajectory(rollout) })),
        purpose,
        `${store.getRun()?.seed ?? 0}:${suite}`,
      ).map(withSeed),
    );
  }
  return [];
}

/**
 * Pending proposals of the running round with their search rollouts so far. The total is the incumbent's count
 * (a proposal runs the same tasks and seeds); the ETA extrapolates the pace since its first rollout.
 */
function inProgress(store: RunReader, status: RunStatus, now: Date): InProgress[] {
  const round = status.rounds[status.rounds.length - 1];
  if (!round || round.finished) return [];
  const total = store.listRollouts(round.incumbent_before, "search").length;
  return round.proposals
    .filter((p) => p.state === "pending" || (round.round === 0 && p.score === null))
    .map((p) => {
      const rollouts = store.listRollouts(p.commit, "search");
      const started = Math.min(...rollouts.map((r) => Date.parse(r.created_at)));
      const elapsed = (now.getTime() - started) / 1000;
      const rate = rollouts.length > 0 && elapsed > 0 ? rollouts.length / elapsed : 0;
      const remaining = Math.max(0, total - rollouts.length);
      return {
        id: p.id,
        commit: p.commit,
        done: rollouts.length,
        total,
        etaSeconds: rate > 0 && total > 0 ? Math.round(remaining / rate) : null,
      };
    });
}
