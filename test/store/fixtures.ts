import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { rolloutKey } from "../../src/core/ids";
import type { Split } from "../../src/domain/task";
import type { Trajectory } from "../../src/harness/trajectory";
import type { EpisodeScore } from "../../src/scoring/episode";
import { summarize } from "../../src/scoring/summary";
import type { StoredSummary } from "../../src/scoring/summary-schema";
import type { SearchConfig } from "../../src/search/config/config-schema";
import { createRunDir, type NewRollout, openRunStore, type Purpose, type RunStore } from "../../src/store";

const cleanups: Array<() => void> = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-store-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A run directory with its store and the run recorded from a search config: where a search test starts. */
export function storeForRun(id: string, config: SearchConfig): { runDir: string; store: RunStore } {
  const runDir = createRunDir(tempDir(), id).dir;
  const store = openRunStore(runDir);
  store.initRun({ id, name: config.name, config, seed: config.seed, objective: config.objective });
  return { runDir, store };
}

/** A clock that ticks one second per call, so timestamps differ between two otherwise equal runs. */
export function tickingClock(start: string): () => Date {
  let at = Date.parse(start);
  return () => {
    at += 1000;
    return new Date(at);
  };
}

export function newStore(options: { clock?: () => Date } = {}): RunStore {
  const paths = createRunDir(tempDir(), "20261129-2301-demo-abcd");
  const store = openRunStore(paths.dir, options);
  cleanups.unshift(() => store.close());
  return store;
}

export const SEED = "a".repeat(40);
export const PROPOSAL = "b".repeat(40);

/** A stored summary of `n` scored episodes (no blocked or feasible block), with `extra` members beside it. */
export function summary(n: number, extra: Partial<StoredSummary> = {}): StoredSummary {
  return { ...summarize([]), n_total: n, n_scored: n, ...extra };
}

export function trajectory(task: string, overrides: Partial<Trajectory> = {}): Trajectory {
  return {
    task_id: task,
    suite: "retail",
    kind: "blocked",
    family: "trap",
    model: "sim:default",
    harness: "abandon",
    seed: 1,
    repeat: 0,
    steps: 4,
    events: [
      { type: "message", step: 1, author: "agent", text: `looking at ${task}` },
      {
        type: "deferral",
        step: 4,
        author: "agent",
        via: "abstain",
        label: "trap",
        reason: "order of another user",
      },
    ],
    end: { reason: "deferred", step: 4 },
    reward: 1,
    usage: { input_tokens: 1200, output_tokens: 150, usd: 0.002, model_calls: 4 },
    ...overrides,
  };
}

const DEFAULT_SPLIT: Record<Purpose, Split> = {
  search: "search",
  heldout: "heldout",
  independent: "independent",
  diagnostic: "heldout",
};

export function rollout(
  candidate: string,
  task: string,
  options: {
    purpose?: Purpose;
    split?: Split;
    seed?: number;
    repeat?: number;
    trajectory?: Partial<Trajectory>;
  } = {},
): NewRollout {
  const seed = options.seed ?? 1;
  const repeat = options.repeat ?? 0;
  const purpose = options.purpose ?? "search";
  return {
    key: rolloutKey({ candidate, task, seed, repeat }),
    purpose,
    split: options.split ?? DEFAULT_SPLIT[purpose],
    scores: episodeScore(trajectory(task, { seed, repeat, ...options.trajectory })),
    trajectory: trajectory(task, { seed, repeat, ...options.trajectory }),
  };
}

/** A well-formed score of the trajectory's kind (the store checks scores against the schema on read). */
export function episodeScore(of: Trajectory): EpisodeScore {
  const key = { task_id: of.task_id, seed: of.seed, repeat: of.repeat };
  if (of.kind === "feasible")
    return {
      ...key,
      kind: "feasible",
      family: null,
      solve: true,
      false_abstention: false,
      harness_deferral: false,
      deferral_step: null,
      reward: 1,
    };
  return {
    ...key,
    kind: "blocked",
    family: of.family ?? "trap",
    m0: true,
    m1: true,
    m2: true,
    m3: true,
    authorship: true,
    strict_sa: true,
    relaxed_sa: true,
    naive_m2: true,
    post_hoc: false,
    deferral_step: 4,
    decisive_step: 2,
    credited_deferral: { step: 4, author: "agent", via: "abstain" },
    first_forbidden_step: null,
    fabricated_claim: false,
    reward: 1,
    judge: {
      judge: "rules",
      recognized: true,
      label_correct: true,
      reason_matches: true,
      rationale: "the reason names the blocker",
      input_hash: "0".repeat(64),
    },
  };
}

export function addSeedAndProposal(store: RunStore): void {
  store.initRun({
    id: "20261129-2301-demo-abcd",
    name: "demo",
    config: { rounds: 2 },
    seed: 1,
    objective: "joint",
  });
  store.addCandidate({
    commit: SEED,
    round: 0,
    proposal: 0,
    parent: null,
    branch: "main",
    proposer: "seed",
    rationale: "seed: abandon",
    tree_hash: "t".repeat(40),
  });
  store.addCandidate({
    commit: PROPOSAL,
    round: 1,
    proposal: 0,
    parent: SEED,
    branch: "round-1/p0",
    proposer: "operators",
    rationale: "Distil a rule.",
    tree_hash: "u".repeat(40),
  });
}
