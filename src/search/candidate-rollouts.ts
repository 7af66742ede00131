import { rolloutKey } from "../core/ids";
import type { Split, Task } from "../domain/task";
import { evaluateJobs, planRollouts, type RolloutJob } from "../eval/evaluate";
import { readTree } from "../git";
import { type Harness, type HarnessLimits, harnessLimitsOf, parseHarness } from "../harness/load";
import type { Trajectory } from "../harness/trajectory";
import { type EpisodeScore, objectiveScore, summarize } from "../scoring";
import type { SearchDeps } from "./search-deps";

/**
 * A candidate's rollouts: run on a set of tasks through the budget gate, or read back from the store when a resumed
 * run already has them.
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
  // Evaluated before (a resumed run may find it already judged and rejected): its score stands.
  if ((known?.state === "evaluated" || known?.state === "rejected") && known.score !== null)
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
  const summary = summarize(scores);
  const score = objectiveScore(scores, config.objective);
  store.setCandidateOutcome(commit, {
    state: "evaluated",
    score,
    summary: summary as unknown as Record<string, unknown>,
  });
  return score;
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
  const stored = new Map(
    store.listRollouts(commit, purpose).map((r) => [r.key, r.scores as unknown as EpisodeScore]),
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
        scores: p.score as unknown as Record<string, unknown>,
        trajectory: p.trajectory,
      })),
    );
    deps.gate?.stored(batch.reduce((sum, p) => sum + p.trajectory.usage.usd, 0));
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
      beforeRollout: () => deps.gate?.admit(),
      onRollout: (job, trajectory, score) => {
        pending.push({ key: keyOf(job), split: job.task.split, trajectory, score });
        deps.gate?.finished(trajectory.usage.usd);
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
  return jobs.map((job) => (stored.get(keyOf(job)) ?? fresh.get(keyOf(job))) as EpisodeScore);
}
