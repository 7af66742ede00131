/**
 * The viewer's in-memory model of a run (issue 23): every record of run.db the pages read, kept up to date from the
 * run's changes rather than read again for each page. `sync()` asks SQLite whether anything was committed since
 * (data_version); when something was, it reads the small tables again (run, candidates, rounds, evaluations, usage:
 * tens of rows) and only the rollouts and events added since (by row id). Every page rendered after one sync reads
 * the same snapshot, so the "under evaluation" banner and the rounds table cannot disagree. Derived values that cost
 * (paired bootstraps, comparisons, examples with their trajectories) are remembered while the rollouts of the
 * candidates they read are unchanged (`memo`). No SQL here: the store reads, this keeps.
 */
import type { Trajectory } from "../../harness";
import type {
  EvaluationPurpose,
  EventRecord,
  Purpose,
  RolloutRecord,
  RunPaths,
  RunReader,
} from "../../store/types";
import type { Memo } from "../model/memo";

/** The small tables (tens of rows), read whole on each change, each kept as the reader's method returns it. */
const TABLES = [
  "getRun",
  "listCandidates",
  "listRounds",
  "listProposalFailures",
  "listEvaluations",
  "usageTotals",
  "rejectedParameters",
] as const;
type Table = (typeof TABLES)[number];
type Tables = { [K in Table]: ReturnType<RunReader[K]> };

const NO_TABLES: Tables = {
  getRun: undefined,
  listCandidates: [],
  listRounds: [],
  listProposalFailures: [],
  listEvaluations: [],
  usageTotals: [],
  rejectedParameters: [],
};

/** What the model reads its run from: a read-only `RunStore` opened on the live file. */
export interface RunChanges
  extends Pick<RunReader, "paths" | Table | "listEvents" | "countRollouts" | "readTrajectory"> {
  /** Changes whenever another connection commits. */
  dataVersion(): number;
  listRolloutsAfter(afterRowid: number): Array<{ rowid: number; rollout: RolloutRecord }>;
}

/** What the model has done, for tests and the benchmark: a page served from memory reads nothing. */
export interface ModelStats {
  /** `sync()` calls, and those that found the database changed. */
  syncs: number;
  changes: number;
  /** Times every rollout was read (the first sync, or after rows disappeared, which a run never does). */
  fullLoads: number;
  /** Rollout and event rows read in all. */
  rolloutsRead: number;
  eventsRead: number;
  trajectoriesRead: number;
}

interface Bucket {
  rollouts: RolloutRecord[];
  sorted: boolean;
  /** Bumped on every added or replaced rollout of the candidate: the stamp of what was derived from them. */
  version: number;
}

/** How many trajectories stay in memory (they never change once stored; a page reads a few). */
const TRAJECTORY_CACHE = 256;

const rolloutId = (purpose: Purpose, key: string) => `${purpose}/${key}`;

/** The store's order: purpose, task, seed, repeat, key (SQLite compares text bytewise, as `<` does for ASCII). */
function byStoreOrder(a: RolloutRecord, b: RolloutRecord): number {
  const fields = [
    [a.purpose, b.purpose],
    [a.task_id, b.task_id],
    [a.seed, b.seed],
    [a.repeat, b.repeat],
    [a.key, b.key],
  ] as const;
  for (const [x, y] of fields) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

export class RunModel implements RunReader {
  readonly paths: RunPaths;
  readonly stats: ModelStats = {
    syncs: 0,
    changes: 0,
    fullLoads: 0,
    rolloutsRead: 0,
    eventsRead: 0,
    trajectoriesRead: 0,
  };
  readonly #source: RunChanges;
  #dataVersion: number | null = null;
  #generation = 0;
  #tables = NO_TABLES;
  #byCommit = new Map<string, Tables["listCandidates"][number]>();
  #events: EventRecord[] = [];
  #rollouts = new Map<string, RolloutRecord>();
  #buckets = new Map<string, Bucket>();
  #maxRowid = 0;
  #trajectories = new Map<string, Trajectory>();
  #memory = new Map<string, { stamp: string; value: unknown }>();

  constructor(source: RunChanges) {
    this.#source = source;
    this.paths = source.paths;
  }

  /** Counts the changes seen: a page rendered at one generation can be served again until the next. */
  get generation(): number {
    return this.#generation;
  }

  /** Reads what changed since the last sync; true when anything did. */
  sync(): boolean {
    this.stats.syncs++;
    const version = this.#source.dataVersion();
    if (version === this.#dataVersion) return false;
    this.#dataVersion = version;
    this.stats.changes++;
    this.#generation++;
    const source = this.#source;
    this.#tables = Object.fromEntries(TABLES.map((table) => [table, source[table]()])) as Tables;
    this.#byCommit = new Map(this.#tables.listCandidates.map((c) => [c.commit, c]));
    const events = source.listEvents({ afterId: this.#events.at(-1)?.id ?? 0 });
    this.stats.eventsRead += events.length;
    this.#events.push(...events);
    this.#readRollouts();
    return true;
  }

  #readRollouts(): void {
    const fresh = this.#source.listRolloutsAfter(this.#maxRowid);
    this.stats.rolloutsRead += fresh.length;
    if (this.#maxRowid === 0) this.stats.fullLoads++;
    for (const { rowid, rollout } of fresh) {
      this.#maxRowid = Math.max(this.#maxRowid, rowid);
      this.#add(rollout);
    }
    // A retried infrastructure error replaces its row under the same key (handled by #add); rows that vanished
    // otherwise mean the file is not the run it was (replaced under the viewer): read every rollout again.
    if (this.#rollouts.size !== this.#source.countRollouts()) {
      this.#rollouts.clear();
      for (const bucket of this.#buckets.values()) {
        bucket.rollouts = [];
        bucket.version++;
      }
      this.#maxRowid = 0;
      this.#trajectories.clear();
      this.#readRollouts();
    }
  }

  #add(rollout: RolloutRecord): void {
    const id = rolloutId(rollout.purpose, rollout.key);
    const previous = this.#rollouts.get(id);
    if (previous) {
      const old = this.#buckets.get(previous.candidate);
      if (old) {
        old.rollouts = old.rollouts.filter((r) => r !== previous);
        old.version++;
      }
    }
    this.#rollouts.set(id, rollout);
    let bucket = this.#buckets.get(rollout.candidate);
    if (!bucket) {
      bucket = { rollouts: [], sorted: true, version: 0 };
      this.#buckets.set(rollout.candidate, bucket);
    }
    bucket.rollouts.push(rollout);
    bucket.sorted = false;
    bucket.version++;
  }

  /**
   * A derived value remembered under `name` while the rollouts of `candidates` are unchanged; computed again (and
   * the old value dropped) once one of them has a new rollout.
   */
  readonly memo: Memo = <T>(name: string, candidates: readonly string[], compute: () => T): T => {
    const key = `${name}|${candidates.join(",")}`;
    const stamp = candidates.map((c) => this.#buckets.get(c)?.version ?? 0).join(",");
    const known = this.#memory.get(key);
    if (known && known.stamp === stamp) return known.value as T;
    const value = compute();
    this.#memory.set(key, { stamp, value });
    return value;
  };

  // ── RunReader ────────────────────────────────────────────────────────────────────────────────────────────────

  getRun() {
    return this.#tables.getRun;
  }

  listCandidates() {
    return [...this.#tables.listCandidates];
  }

  getCandidate(commit: string) {
    return this.#byCommit.get(commit);
  }

  listRounds() {
    return [...this.#tables.listRounds];
  }

  getRound(round: number) {
    return this.#tables.listRounds.find((r) => r.round === round);
  }

  listProposalFailures() {
    return [...this.#tables.listProposalFailures];
  }

  listRollouts(commit: string, purpose?: Purpose): RolloutRecord[] {
    const bucket = this.#buckets.get(commit);
    if (!bucket) return [];
    if (!bucket.sorted) {
      bucket.rollouts.sort(byStoreOrder);
      bucket.sorted = true;
    }
    return purpose === undefined
      ? [...bucket.rollouts]
      : bucket.rollouts.filter((r) => r.purpose === purpose);
  }

  getRollout(purpose: Purpose, key: string): RolloutRecord | undefined {
    return this.#rollouts.get(rolloutId(purpose, key));
  }

  countRollouts(purpose?: Purpose): number {
    if (purpose === undefined) return this.#rollouts.size;
    let n = 0;
    for (const rollout of this.#rollouts.values()) if (rollout.purpose === purpose) n++;
    return n;
  }

  countCachedRollouts(purpose?: Purpose): number {
    let n = 0;
    for (const rollout of this.#rollouts.values())
      if (rollout.from_cache && (purpose === undefined || rollout.purpose === purpose)) n++;
    return n;
  }

  listEvaluations() {
    return [...this.#tables.listEvaluations];
  }

  getEvaluation(commit: string, purpose: EvaluationPurpose, split: string) {
    return this.#tables.listEvaluations.find(
      (e) => e.candidate === commit && e.purpose === purpose && e.split === split,
    );
  }

  listEvents(options: { afterId?: number; limit?: number } = {}): EventRecord[] {
    const after = this.#events.filter((e) => e.id > (options.afterId ?? 0));
    return options.limit === undefined || options.limit < 0 ? after : after.slice(0, options.limit);
  }

  usageTotals() {
    return [...this.#tables.usageTotals];
  }

  rejectedParameters() {
    return [...this.#tables.rejectedParameters];
  }

  /** A stored trajectory, read once (checked against its row's hash by the store) and then kept. */
  readTrajectory(rollout: RolloutRecord): Trajectory {
    const id = `${rolloutId(rollout.purpose, rollout.key)}@${rollout.trajectory_sha256}`;
    const known = this.#trajectories.get(id);
    if (known) {
      // Most recently used last, so the oldest is dropped first.
      this.#trajectories.delete(id);
      this.#trajectories.set(id, known);
      return known;
    }
    const trajectory = this.#source.readTrajectory(rollout);
    this.stats.trajectoriesRead++;
    this.#trajectories.set(id, trajectory);
    if (this.#trajectories.size > TRAJECTORY_CACHE) {
      const oldest = this.#trajectories.keys().next().value;
      if (oldest !== undefined) this.#trajectories.delete(oldest);
    }
    return trajectory;
  }
}
