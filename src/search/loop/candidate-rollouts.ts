import { rolloutKey } from "../../core";
import type { Split, Task } from "../../domain";
import { environmentChoicesOf } from "../../envs";
import { evaluateJobs, isRetriedInfraError, planRollouts, type RolloutJob } from "../../eval";
import { readTree } from "../../git";
import type { Trajectory } from "../../harness";
import { type Harness, type HarnessLimits, harnessLimitsOf, parseHarness } from "../../harness";
import {
  describeInfraGate,
  type EpisodeScore,
  infraErrorGate,
  objectiveScore,
  summarize,
} from "../../scoring";
import { InfraErrorRateExceeded } from "./infra-errors";
import type { SearchDeps } from "./search-deps";

/**
 * A candidate's rollouts: run on a set of tasks through the budget gate, or read back from the store when a resumed
 * run already has them. A stored infrastructure error is not an outcome: every later evaluation of the candidate
 * (a paired test, a resumed run) runs that (task, repeat) again.
 */

/** Rollouts are written to the store in batches of this many. */
const STORE_BATCH = 25;

export async function loadCandidate(repo: string, commit: string, limits: HarnessLimits): Promise<Harness> {
  return parseHarness(await readTree(repo, commit), commit.slice(0, 12), limits);
}

/** Evaluate a candidate on the search split (skipping stored rollouts), record its score, return it. */
export async function evaluateCandidate(
  deps: SearchDeps,
  repo: string,
  commit: string,
  round: number,
  proposal: number,
): Promise<number> {
  const { store, config } = deps;
  const known = store.getCandidate(commit);
  // Evaluated before (a resumed run may find it already judged and rejected): its score stands, unless some of its
  // rollouts met infrastructure errors, which are run again now.
  const complete = (known?.summary as { n_scored?: number; n_total?: number } | null)?.n_scored;
  if (
    (known?.state === "evaluated" || known?.state === "rejected") &&
    known.score !== null &&
    (complete === undefined || complete === (known.summary as { n_total?: number }).n_total)
  )
    return known.score;
  const harness = await loadCandidate(repo, commit, harnessLimitsOf(config.limits));
  const scores = await runJobs(
    deps,
    harness,
    commit,
    "search",
    deps.tasks.search,
    `round ${round} p${proposal}`,
  );
  const score = objectiveScore(scores, config.objective);
  store.setCandidateOutcome(commit, {
    state: known?.state === "rejected" ? "rejected" : "evaluated",
    ...(known?.verdict ? { verdict: known.verdict } : {}),
    rejected_reason: known?.rejected_reason ?? null,
    score,
    summary: summarize(scores),
  });
  return score;
}

/** A candidate's search scores of the configured repeats changed (a retried infra error): store them again. */
export function refreshCandidate(deps: SearchDeps, commit: string, scores: readonly EpisodeScore[]): void {
  const known = deps.store.getCandidate(commit);
  if (!known || known.score === null || known.state === "pending") return;
  const summary = summarize(scores);
  const stored = known.summary as { n_scored?: number } | null;
  if (stored?.n_scored === summary.n_scored) return;
  deps.store.setCandidateOutcome(commit, {
    state: known.state,
    ...(known.verdict ? { verdict: known.verdict } : {}),
    rejected_reason: known.rejected_reason,
    ...(known.duplicate_of ? { duplicate_of: known.duplicate_of } : {}),
    score: objectiveScore(scores, deps.config.objective),
    summary,
  });
}

/** Run (or read back) the rollouts of one candidate on a set of tasks; returns every episode score. */
export async function runJobs(
  deps: SearchDeps,
  harness: Harness,
  commit: string,
  purpose: "search" | "heldout" | "independent" | "diagnostic",
  tasks: readonly Task[],
  label: string,
  repeats = deps.config.repeats,
): Promise<EpisodeScore[]> {
  const { store, config } = deps;
  const jobs = planRollouts(tasks, repeats, config.seed);
  const keyOf = (job: RolloutJob) =>
    rolloutKey({ candidate: commit, task: job.task.id, seed: job.seed, repeat: job.repeat });
  // Stored episodes stand, but for infrastructure errors that may pass now (not a task's failed setup).
  const stored = new Map(
    store
      .listRollouts(commit, purpose)
      .map((r) => [r.key, r.scores] as const)
      .filter(([, score]) => !isRetriedInfraError(score)),
  );
  const todo = jobs.filter((job) => !stored.has(keyOf(job)));
  let done = jobs.length - todo.length;
  deps.events?.rollouts?.(done, jobs.length, label);
  const pending: Array<{ key: string; split: Split; trajectory: Trajectory; score: EpisodeScore }> = [];
  const flush = () => {
    if (pending.length === 0) return;
    const batch = pending.splice(0);
    store.recordRollouts(
      commit,
      batch.map((p) => ({
        key: p.key,
        purpose,
        split: p.split,
        scores: p.score,
        trajectory: p.trajectory,
      })),
    );
  };
  let outcomes: Awaited<ReturnType<typeof evaluateJobs>>;
  try {
    outcomes = await evaluateJobs({
      harness,
      jobs: todo,
      model: deps.model,
      judge: deps.judge,
      concurrency: config.concurrency,
      customerModel: deps.customerModel,
      prices: deps.prices,
      slots: deps.slots,
      execute: deps.executor,
      ...environmentChoicesOf(deps),
      beforeRollout: () => deps.gate?.admit(),
      onRollout: (job, trajectory, score) => {
        // Answered whole from the request cache: free, so the budget does not count it (search/plan/budget.ts).
        if (trajectory.from_cache) deps.gate?.free();
        pending.push({ key: keyOf(job), split: job.task.split, trajectory, score });
        if (pending.length >= STORE_BATCH) flush();
        done++;
        deps.events?.rollouts?.(done, jobs.length, label);
      },
    });
  } finally {
    // Rollouts that finished before a failure or a budget stop are kept: a resume does not run them again.
    flush();
  }
  const fresh = new Map(outcomes.map((o) => [keyOf(o.job), o.score]));
  const scores = jobs.map((job) => (stored.get(keyOf(job)) ?? fresh.get(keyOf(job))) as EpisodeScore);
  // Infrastructure errors left after the retry passes: a few are retried later; too many stop the run.
  const gate = infraErrorGate(scores, config.max_infra_error_rate);
  if (gate) {
    store.logEvent({ kind: "infra_error_rate", data: { candidate: commit, purpose, ...gate } });
    throw new InfraErrorRateExceeded(`${label} (${commit.slice(0, 12)}): ${describeInfraGate(gate)}`);
  }
  return scores;
}
