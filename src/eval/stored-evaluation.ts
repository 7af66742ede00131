/**
 * An evaluation that keeps its episodes: each rollout's trajectory and score go to the evaluation directory's store
 * as soon as the rollout is scored (trajectory line fsynced, then its row), under the purpose named by its task's
 * split. A resumed evaluation reads back every stored episode and runs only the rest, on the same seeds, so it ends
 * with the same result as one never interrupted. A stored infrastructure error is not an outcome: it is run again.
 */
import { rolloutKey } from "../core/ids";
import type { Task } from "../domain/task";
import type { Harness } from "../harness/load";
import type { ChatModel } from "../models/types";
import type { EpisodeScore, Judge } from "../scoring";
import type { RunStore, UsageTotal } from "../store";
import { evaluateJobs, planRollouts, type RolloutJob } from "./evaluate";

export interface StoredEvaluationOptions {
  store: RunStore;
  /** The harness's commit in the directory's repository (its candidate). */
  commit: string;
  harness: Harness;
  tasks: readonly Task[];
  repeats: number;
  seed: number;
  model: ChatModel;
  judge: Judge;
  customerModel?: ChatModel;
  concurrency: number;
  /** This session's usage so far, per role and model: stored with every episode, so a killed evaluation keeps it. */
  usage: () => UsageTotal[];
  onProgress?: (done: number, total: number) => void;
}

export interface StoredEvaluationResult {
  /** Every planned episode's score, in plan order (task, then repeat). */
  scores: EpisodeScore[];
  /** Episodes read back from an earlier session rather than run now. */
  reused: number;
}

/** The key an episode is stored under: the run's rollout key of (harness commit, task, seed, repeat). */
export function evaluationKey(
  commit: string,
  job: { task: Pick<RolloutJob["task"], "id">; seed: number; repeat: number },
): string {
  return rolloutKey({ candidate: commit, task: job.task.id, seed: job.seed, repeat: job.repeat });
}

export async function runStoredEvaluation(options: StoredEvaluationOptions): Promise<StoredEvaluationResult> {
  const { store, commit } = options;
  const jobs = planRollouts(options.tasks, options.repeats, options.seed);
  const stored = new Map(
    store
      .listRollouts(commit)
      .filter((rollout) => rollout.scores.kind !== "infra_error")
      .map((rollout) => [rollout.key, rollout.scores as EpisodeScore] as const),
  );
  const todo = jobs.filter((job) => !stored.has(evaluationKey(commit, job)));
  const session = store.beginUsageSession();
  let done = jobs.length - todo.length;
  options.onProgress?.(done, jobs.length);
  const outcomes = await evaluateJobs({
    harness: options.harness,
    jobs: todo,
    model: options.model,
    judge: options.judge,
    customerModel: options.customerModel,
    concurrency: options.concurrency,
    onRollout: (job, trajectory, score) => {
      // One episode at a time: an episode is worth far more than the fsync that keeps it.
      store.recordRollouts(commit, [
        {
          key: evaluationKey(commit, job),
          purpose: job.task.split,
          split: job.task.split,
          scores: score,
          trajectory,
        },
      ]);
      store.putSessionUsage(session, options.usage());
      done++;
      options.onProgress?.(done, jobs.length);
    },
  });
  store.putSessionUsage(session, options.usage());
  const fresh = new Map(outcomes.map((outcome) => [evaluationKey(commit, outcome.job), outcome.score]));
  const scores = jobs.map((job) => {
    const key = evaluationKey(commit, job);
    return (stored.get(key) ?? fresh.get(key)) as EpisodeScore;
  });
  return { scores, reused: jobs.length - todo.length };
}
