/**
 * The run database (SQLite, WAL, foreign keys on) behind typed methods; no SQL lives outside src/store. Writes are
 * idempotent where a resumed run repeats them: the same candidate, round start or rollout recorded again is
 * accepted, a different one under the same key is a conflict.
 */
import { existsSync, mkdirSync } from "node:fs";
import Database from "better-sqlite3";
import { canonicalJson, HsearchError, hashJson } from "../core";
import type { Trajectory } from "../harness";
import type { LearntRejection } from "../models";
import { contentHash } from "./content-hash";
import { migrate, schemaVersion } from "./migrate";
import { MIGRATIONS } from "./migrations";
import * as probeEpisodes from "./probe-table";
import {
  assertDatabaseFile,
  assertIntact,
  assertSchema,
  damaged,
  openReadOnlyDatabase,
} from "./read-only-db";
import type {
  CandidateOutcome,
  CandidateRecord,
  EvaluationPurpose,
  EvaluationRecord,
  EventRecord,
  JsonInput,
  NewCandidate,
  NewEvaluation,
  NewModelCall,
  NewProbeEpisode,
  NewRollout,
  NewRun,
  Probe,
  ProbeEpisodeRecord,
  ProposalFailure,
  Purpose,
  RecordedRollouts,
  RolloutRecord,
  RoundOutcome,
  RoundRecord,
  RunKind,
  RunRecord,
  RunState,
  UsageTotal,
} from "./records";
import * as rejections from "./rejected-parameters";
import * as rollouts from "./rollout-table";
import {
  type CandidateRow,
  type EvaluationRow,
  type RoundRow,
  type RunRow,
  type SummaryKind,
  summaryKindOf,
  summaryText,
  toCandidate,
  toEvaluation,
  toRound,
  toRun,
} from "./rows";
import { type RunPaths, runPaths } from "./run-dir";
import { eventData, eventsOf, type RunEvent, type RunEventKind, type TypedEventRecord } from "./run-events";
import type { RunReader } from "./run-reader";
import { SearchView } from "./search-view";
import type { StoreContext } from "./store-context";
import type { LinePointer, TrajectoryEntry } from "./trajectory-log";
import * as usage from "./usage-events";

export interface OpenOptions {
  /** Open for reading only (status, report, viewer): no migration, no writes. */
  readonly?: boolean;
  /**
   * With readonly: read the file itself, to follow a run that another process may write (the viewer), rather than
   * a copy of it; SQLite may then add its -wal/-shm companions beside run.db.
   */
  live?: boolean;
  /** Time source for created_at / ended_at columns. */
  clock?: () => Date;
  /** The schema steps; tests pass their own to exercise upgrades. */
  migrations?: readonly string[];
}

/** Opens (creating or migrating) `<dir>/run.db`. */
export function openRunStore(dir: string, options: OpenOptions = {}): RunStore {
  const paths = runPaths(dir);
  if (!existsSync(dir))
    throw new HsearchError("not_found", `run directory ${dir} does not exist`, { file: dir });
  const clock = options.clock ?? (() => new Date());
  const migrations = options.migrations ?? MIGRATIONS;
  if (options.readonly)
    return new RunStore(
      openReadOnlyDatabase(paths.db, migrations, clock, options.live ?? false),
      paths,
      clock,
    );
  // A resumed run: refuse a damaged database before SQLite writes into it.
  if (existsSync(paths.db)) assertDatabaseFile(paths.db);
  mkdirSync(paths.trajectories, { recursive: true });
  const db = new Database(paths.db);
  try {
    db.pragma("journal_mode = WAL");
    // NORMAL is enough: trajectory lines are fsynced before the row commits, so a lost commit only means a re-run.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    assertIntact(db, paths.db);
    migrate(db, paths.db, clock, migrations);
    assertSchema(db, paths.db, migrations);
  } catch (error) {
    db.close();
    if (error instanceof HsearchError) throw error;
    throw damaged(paths.db, error instanceof Error ? error.message : String(error), error);
  }
  return new RunStore(db, paths, clock);
}

function conflict(message: string, field?: string): HsearchError {
  return new HsearchError("conflict", message, { field });
}

export class RunStore implements RunReader {
  readonly paths: RunPaths;
  readonly #db: Database.Database;
  readonly #clock: () => Date;

  readonly #ctx: StoreContext;
  #knownSummaryKind: SummaryKind | undefined;

  /** @internal Opened by openRunStore; the database type stays out of the package's declarations. */
  constructor(db: Database.Database, paths: RunPaths, clock: () => Date) {
    this.#db = db;
    this.paths = paths;
    this.#clock = clock;
    this.#ctx = { db, dir: paths.dir, file: paths.db, now: () => clock().toISOString() };
  }

  close(): void {
    this.#db.close();
  }

  /** Runs `work` in one transaction: several store calls commit together or not at all. */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work)();
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  schemaVersion(): number {
    return schemaVersion(this.#db);
  }

  // ── run ──────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Records the run, or returns it when resuming the same run with the same config. */
  initRun(run: NewRun): RunRecord {
    const configHash = hashJson(run.config);
    const existing = this.getRun();
    if (existing !== undefined) {
      if (
        existing.id !== run.id ||
        existing.config_hash !== configHash ||
        existing.kind !== (run.kind ?? "search")
      ) {
        throw conflict(
          `run.db holds run ${existing.id} with config ${existing.config_hash.slice(0, 12)}, not ${run.id}`,
        );
      }
      return existing;
    }
    this.#db
      .prepare(
        `INSERT INTO run (singleton, id, kind, name, created_at, config_json, config_hash, seed, objective, state)
         VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`,
      )
      .run(
        run.id,
        run.kind ?? "search",
        run.name,
        this.#now(),
        canonicalJson(run.config),
        configHash,
        run.seed,
        run.objective ?? null,
      );
    return this.getRun() as RunRecord;
  }

  /** What the candidates' summaries are: a probe directory's is the probe's report (the run's kind never changes). */
  #summaryKind(): SummaryKind {
    if (this.#knownSummaryKind) return this.#knownSummaryKind;
    const row = this.#db.prepare("SELECT kind FROM run").get() as { kind: RunKind } | undefined;
    if (row === undefined) return "summary";
    this.#knownSummaryKind = summaryKindOf(row.kind);
    return this.#knownSummaryKind;
  }

  getRun(): RunRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM run").get() as RunRow | undefined;
    return row === undefined ? undefined : toRun(row, this.#ctx);
  }

  /** `running` again on resume; `finished`/`failed` stamp ended_at. */
  setRunState(state: RunState, error: string | null = null): void {
    const endedAt = state === "running" ? null : this.#now();
    // A finished run stays finished when told so again: its end time is when it finished, not when it was reread.
    const result = this.#db
      .prepare(
        `UPDATE run SET ended_at = CASE WHEN state = 'finished' AND ? = 'finished' THEN ended_at ELSE ? END,
           state = ?, error = ?`,
      )
      .run(state, endedAt, state, error);
    if (result.changes === 0) throw new HsearchError("not_found", "no run recorded yet (call initRun first)");
  }

  /** Replace the stored config's budget (a resume with a larger budget); the config hash follows. */
  setBudget(budget: JsonInput): void {
    const run = this.getRun();
    if (!run) throw new HsearchError("not_found", "no run recorded yet (call initRun first)");
    const config = { ...run.config, budget };
    this.#db
      .prepare("UPDATE run SET config_json = ?, config_hash = ?")
      .run(canonicalJson(config), hashJson(config));
  }

  activeMs(): number {
    return this.getRun()?.active_ms ?? 0;
  }

  setActiveMs(ms: number): void {
    this.#db.prepare("UPDATE run SET active_ms = ?").run(Math.round(ms));
  }

  // ── candidates ───────────────────────────────────────────────────────────────────────────────────────────────

  /** Adds a committed candidate (state pending); the identical candidate again returns the stored one. */
  addCandidate(candidate: NewCandidate): CandidateRecord {
    const existing = this.getCandidate(candidate.commit);
    if (existing !== undefined) {
      const same = (Object.keys(candidate) as Array<keyof NewCandidate>).every(
        (field) => existing[field] === candidate[field],
      );
      if (!same)
        throw conflict(`candidate ${candidate.commit.slice(0, 12)} is stored with other fields`, "commit");
      return existing;
    }
    const slot = this.#db
      .prepare("SELECT commit_sha FROM candidates WHERE round = ? AND proposal = ?")
      .get(candidate.round, candidate.proposal) as { commit_sha: string } | undefined;
    if (slot !== undefined) {
      throw conflict(
        `round ${candidate.round} proposal ${candidate.proposal} is already candidate ${slot.commit_sha.slice(0, 12)}`,
        "proposal",
      );
    }
    this.#db
      .prepare(
        `INSERT INTO candidates (commit_sha, round, proposal, parent_commit, branch, proposer, rationale, tree_hash,
                                 created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        candidate.commit,
        candidate.round,
        candidate.proposal,
        candidate.parent,
        candidate.branch,
        candidate.proposer,
        candidate.rationale,
        candidate.tree_hash,
        this.#now(),
      );
    return this.getCandidate(candidate.commit) as CandidateRecord;
  }

  getCandidate(commit: string): CandidateRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM candidates WHERE commit_sha = ?").get(commit) as
      | CandidateRow
      | undefined;
    return row === undefined ? undefined : toCandidate(row, this.#ctx, this.#summaryKind());
  }

  #requireCandidate(commit: string): CandidateRecord {
    const candidate = this.getCandidate(commit);
    if (candidate === undefined) {
      throw new HsearchError("not_found", `no candidate ${commit.slice(0, 12)} in run.db`, {
        field: "commit",
      });
    }
    return candidate;
  }

  listCandidates(filter: { round?: number } = {}): CandidateRecord[] {
    const rows = (
      filter.round === undefined
        ? this.#db.prepare("SELECT * FROM candidates ORDER BY round, proposal").all()
        : this.#db.prepare("SELECT * FROM candidates WHERE round = ? ORDER BY proposal").all(filter.round)
    ) as CandidateRow[];
    return rows.map((row) => toCandidate(row, this.#ctx, this.#summaryKind()));
  }

  /** Sets a candidate's outcome: evaluated with its search score and summary, or rejected/invalid/duplicate. */
  setCandidateOutcome(commit: string, outcome: CandidateOutcome): CandidateRecord {
    this.#requireCandidate(commit);
    this.#db
      .prepare(
        `UPDATE candidates SET state = ?, verdict = COALESCE(?, verdict), score = ?, summary_json = ?,
           rejected_reason = ?, duplicate_of = ?
         WHERE commit_sha = ?`,
      )
      .run(
        outcome.state,
        outcome.verdict ?? null,
        outcome.score ?? null,
        outcome.summary == null ? null : summaryText(outcome.summary),
        outcome.rejected_reason ?? null,
        outcome.duplicate_of ?? null,
        commit,
      );
    return this.#requireCandidate(commit);
  }

  /** Proposals that never became a commit, by round and proposal. */
  listProposalFailures(): ProposalFailure[] {
    return this.#db
      .prepare(
        "SELECT round, proposal, proposer, rationale, reason FROM proposal_failures ORDER BY round, proposal",
      )
      .all() as ProposalFailure[];
  }

  /** A proposal that never became a commit. Recording the same slot again keeps the first record. */
  recordProposalFailure(failure: ProposalFailure): void {
    this.#db
      .prepare(
        `INSERT INTO proposal_failures (round, proposal, proposer, rationale, reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (round, proposal) DO NOTHING`,
      )
      .run(failure.round, failure.proposal, failure.proposer, failure.rationale, failure.reason, this.#now());
  }

  // ── rounds ───────────────────────────────────────────────────────────────────────────────────────────────────

  startRound(round: number, incumbentBefore: string): RoundRecord {
    const existing = this.getRound(round);
    if (existing !== undefined) {
      if (existing.incumbent_before !== incumbentBefore) {
        throw conflict(
          `round ${round} started from ${existing.incumbent_before.slice(0, 12)}`,
          "incumbent_before",
        );
      }
      return existing;
    }
    this.#db
      .prepare("INSERT INTO rounds (round, incumbent_before, started_at) VALUES (?, ?, ?)")
      .run(round, incumbentBefore, this.#now());
    return this.getRound(round) as RoundRecord;
  }

  finishRound(round: number, outcome: RoundOutcome): RoundRecord {
    const result = this.#db
      .prepare(
        `UPDATE rounds SET incumbent_after = ?, accepted_commit = ?, decision_json = ?, ended_at = ?
         WHERE round = ?`,
      )
      .run(
        outcome.incumbent_after,
        outcome.accepted_commit,
        canonicalJson(outcome.decision),
        this.#now(),
        round,
      );
    if (result.changes === 0) throw new HsearchError("not_found", `round ${round} was never started`);
    return this.getRound(round) as RoundRecord;
  }

  getRound(round: number): RoundRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM rounds WHERE round = ?").get(round) as RoundRow | undefined;
    return row === undefined ? undefined : toRound(row, this.#ctx);
  }

  listRounds(): RoundRecord[] {
    return (this.#db.prepare("SELECT * FROM rounds ORDER BY round").all() as RoundRow[]).map((row) =>
      toRound(row, this.#ctx),
    );
  }

  // ── rollouts and trajectories ────────────────────────────────────────────────────────────────────────────────

  hasRollout(purpose: Purpose, key: string): boolean {
    return rollouts.hasRollout(this.#ctx, purpose, key);
  }

  /** Keys already stored for a candidate and purpose: what a resumed run can skip. */
  rolloutKeys(commit: string, purpose: Purpose): Set<string> {
    return rollouts.rolloutKeys(this.#ctx, commit, purpose);
  }

  /**
   * Appends trajectory lines to the candidate's file for `purpose` (fsynced). `recordRollouts` calls it; on its
   * own it only writes lines no row points at, which readers tolerate.
   */
  appendTrajectories(commit: string, purpose: Purpose, entries: TrajectoryEntry[]): LinePointer[] {
    return rollouts.appendTrajectories(this.#ctx, commit, purpose, entries);
  }

  /**
   * Stores one candidate's batch of rollouts. Keys already stored are skipped (resume); the new trajectories are
   * appended and fsynced first, then every row is inserted in one transaction.
   */
  recordRollouts(commit: string, batch: NewRollout[]): RecordedRollouts {
    this.#requireCandidate(commit);
    return rollouts.recordRollouts(this.#ctx, commit, batch);
  }

  listRollouts(commit: string, purpose?: Purpose): RolloutRecord[] {
    return rollouts.listRollouts(this.#ctx, commit, purpose);
  }

  getRollout(purpose: Purpose, key: string): RolloutRecord | undefined {
    return rollouts.getRollout(this.#ctx, purpose, key);
  }

  /** The stored trajectory of a rollout, checked against the hash in its row. */
  readTrajectory(rollout: RolloutRecord): Trajectory {
    return rollouts.readTrajectory(this.#ctx, rollout);
  }

  /** Every trajectory in a candidate's file for `purpose`, deduplicated by key (last line wins). */
  readTrajectoryLog(commit: string, purpose: Purpose): Map<string, Trajectory> {
    return rollouts.readCandidateLog(this.#ctx, commit, purpose);
  }

  countRollouts(purpose?: Purpose): number {
    return rollouts.countRollouts(this.#ctx, purpose);
  }

  countCachedRollouts(purpose?: Purpose): number {
    return rollouts.countCachedRollouts(this.#ctx, purpose);
  }

  /**
   * Rollout rows stored after row `afterRowid`, oldest first, with their row ids (rows are only ever added, or
   * replaced by a later row of the same key): how a reader that keeps the rollouts in memory reads only what is new.
   */
  listRolloutsAfter(afterRowid: number): Array<{ rowid: number; rollout: RolloutRecord }> {
    return rollouts.listRolloutsAfter(this.#ctx, afterRowid);
  }

  /**
   * SQLite's data_version of this connection: it changes when another connection (the run's writer) commits, so a
   * reader that follows a run knows when there is anything to read again.
   */
  dataVersion(): number {
    return this.#db.pragma("data_version", { simple: true }) as number;
  }

  // ── probe episodes ───────────────────────────────────────────────────────────────────────────────────────────

  /** Stores probe episodes of a candidate: trajectories appended and fsynced first, then the rows in one transaction. */
  recordProbeEpisodes(commit: string, batch: NewProbeEpisode[]): RecordedRollouts {
    this.#requireCandidate(commit);
    return probeEpisodes.recordProbeEpisodes(this.#ctx, commit, batch);
  }

  listProbeEpisodes(commit?: string, probe?: Probe): ProbeEpisodeRecord[] {
    return probeEpisodes.listProbeEpisodes(this.#ctx, commit, probe);
  }

  getProbeEpisode(probe: Probe, key: string): ProbeEpisodeRecord | undefined {
    return probeEpisodes.getProbeEpisode(this.#ctx, probe, key);
  }

  /** The stored trajectory of a probe episode, checked against the hash in its row. */
  readProbeTrajectory(episode: ProbeEpisodeRecord): Trajectory {
    return probeEpisodes.readProbeTrajectory(this.#ctx, episode);
  }

  // ── evaluations (held-out, independent, diagnostic) ───────────────────────────────────────────────────────────

  /** Stores (or replaces, on a resumed run) a held-out, independent or diagnostic summary. */
  putEvaluation(evaluation: NewEvaluation): EvaluationRecord {
    this.#requireCandidate(evaluation.candidate);
    this.#db
      .prepare(
        `INSERT INTO evaluations (candidate_commit, purpose, split, round, summary_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (candidate_commit, purpose, split) DO UPDATE SET round = excluded.round,
           summary_json = excluded.summary_json`,
      )
      .run(
        evaluation.candidate,
        evaluation.purpose,
        evaluation.split,
        evaluation.round,
        summaryText(evaluation.summary),
        this.#now(),
      );
    return this.getEvaluation(evaluation.candidate, evaluation.purpose, evaluation.split) as EvaluationRecord;
  }

  getEvaluation(commit: string, purpose: EvaluationPurpose, split: string): EvaluationRecord | undefined {
    const row = this.#db
      .prepare("SELECT * FROM evaluations WHERE candidate_commit = ? AND purpose = ? AND split = ?")
      .get(commit, purpose, split) as EvaluationRow | undefined;
    return row === undefined ? undefined : toEvaluation(row, this.#ctx);
  }

  listEvaluations(): EvaluationRecord[] {
    const rows = this.#db
      .prepare("SELECT * FROM evaluations ORDER BY purpose, split, candidate_commit")
      .all() as EvaluationRow[];
    return rows.map((row) => toEvaluation(row, this.#ctx));
  }

  // ── usage and events ─────────────────────────────────────────────────────────────────────────────────────────

  /** Logs one proposer call of a round (a log only: totals come from the sessions' usage); false if keyed and known. */
  recordModelCall(call: NewModelCall): boolean {
    return usage.recordModelCall(this.#ctx, call);
  }

  /** A new session's number for `putSessionUsage` (each start or resume of a run is one). */
  beginUsageSession(): number {
    return usage.beginUsageSession(this.#ctx);
  }

  /** Replace this session's usage rows with the totals so far (the meters count from the session's start). */
  putSessionUsage(session: number, rows: readonly UsageTotal[]): void {
    usage.putSessionUsage(this.#ctx, session, rows);
  }

  /** Tokens and cost by role and model over every session. */
  usageTotals(): UsageTotal[] {
    return usage.usageTotals(this.#ctx);
  }

  /** The known spend of every session but `exceptSession` (unpriced models count nothing). */
  totalUsd(exceptSession?: number): number {
    return usage.totalUsd(this.#ctx, exceptSession);
  }

  /** Logs one event of the run (src/store/run-events.ts: one schema per kind). */
  logEvent(event: RunEvent): number {
    return usage.logEvent(this.#ctx, event.kind, eventData(event));
  }

  /** The events of one kind, typed by its schema (a damaged one is an error naming it). */
  eventsOf<K extends RunEventKind>(kind: K): Array<TypedEventRecord<K>> {
    return eventsOf(usage.listEvents(this.#ctx, { kind }), kind, this.paths.db);
  }

  /** Events after `afterId` (for a live viewer), oldest first. */
  listEvents(options: { afterId?: number; limit?: number } = {}): EventRecord[] {
    return usage.listEvents(this.#ctx, options);
  }

  // ── rejected parameters ──────────────────────────────────────────────────────────────────────────────────────

  /** A parameter a model's provider rejected (kept for the rest of the run and a resume); false if known. */
  recordRejectedParameter(rejection: LearntRejection): boolean {
    return rejections.recordRejectedParameter(this.#ctx, rejection);
  }

  /** What the run's models' providers rejected, in the order it was learnt. */
  rejectedParameters(): LearntRejection[] {
    return rejections.rejectedParameters(this.#ctx);
  }

  // ── views and comparison ─────────────────────────────────────────────────────────────────────────────────────

  /** The slice proposers and acceptance may read: no held-out, independent or diagnostic data. */
  searchView(): SearchView {
    return new SearchView(this.#db, this.paths.dir);
  }

  /**
   * A hash of the run's results: run, candidates, proposal failures, rounds, rollouts (with their trajectory
   * hashes) and evaluations, leaving out timestamps, byte offsets, events and model-call logs. A resumed run and an
   * uninterrupted one with the same config have the same content hash.
   */
  contentHash(): string {
    return contentHash(this.#ctx);
  }
}
