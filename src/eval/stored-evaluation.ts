/**
 * An evaluation that keeps its episodes: each rollout's trajectory and score go to the evaluation directory's store
 * once the rollout is scored, in small batches (trajectory lines fsynced, then their rows; see storeBatchSize), under
 * the purpose named by its task's split. A resumed evaluation reads back every stored episode and runs only the rest, on the same seeds, so it ends
 * with the same result as one never interrupted. A stored infrastructure error is not an outcome: it is run again.
 */

import { rolloutKey } from "../core";
import type { Task } from "../domain";
import type { ImageSource } from "../envs";
import { environmentChoicesOf } from "../envs";
import type { Harness } from "../harness";
import type { ChatModel } from "../models/types";
import type { EpisodeScore, Judge } from "../scoring";
import type { NewRollout, RunStore, UsageTotal } from "../store";
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
  /** Where a terminal task that names a prebuilt image gets it (default `auto`). */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /** This session's usage so far, per role and model: stored with every episode, so a killed evaluation keeps it. */
  usage: () => UsageTotal[];
  onProgress?: (done: number, total: number) => void;
  /** Before anything runs, when earlier sessions stored some of the episodes. */
  onResume?: (stored: number, total: number) => void;
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
  if (done > 0) options.onResume?.(done, jobs.length);
  options.onProgress?.(done, jobs.length);
  const batchSize = storeBatchSize(jobs.length);
  const pending: NewRollout[] = [];
  let timer: NodeJS.Timeout | undefined;
  // A store failure in the timer's flush surfaces at the next episode, or at the end.
  let failure: unknown;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length > 0) store.recordRollouts(commit, pending.splice(0));
    store.putSessionUsage(session, options.usage());
  };
  let outcomes: Awaited<ReturnType<typeof evaluateJobs>>;
  try {
    outcomes = await evaluateJobs({
      harness: options.harness,
      jobs: todo,
      model: options.model,
      judge: options.judge,
      customerModel: options.customerModel,
      concurrency: options.concurrency,
      ...environmentChoicesOf(options),
      onRollout: (job, trajectory, score) => {
        if (failure !== undefined) throw failure;
        const key = evaluationKey(commit, job);
        pending.push({ key, purpose: job.task.split, split: job.task.split, scores: score, trajectory });
        if (pending.length >= batchSize) flush();
        // Slow episodes (a real model) are not held back waiting for a batch to fill.
        else
          timer ??= setTimeout(() => {
            try {
              flush();
            } catch (error) {
              failure = error;
            }
          }, STORE_WITHIN_MS).unref();
        done++;
        options.onProgress?.(done, jobs.length);
      },
    });
  } finally {
    // Episodes that finished before a failure are kept: a resume does not run them again.
    flush();
  }
  if (failure !== undefined) throw failure;
  const fresh = new Map(outcomes.map((outcome) => [evaluationKey(commit, outcome.job), outcome.score]));
  const scores = jobs.map((job) => {
    const key = evaluationKey(commit, job);
    return (stored.get(key) ?? fresh.get(key)) as EpisodeScore;
  });
  return { scores, reused: jobs.length - todo.length };
}

/** A finished episode waits at most this long to be stored. */
const STORE_WITHIN_MS = 2000;

/**
 * Episodes stored per transaction (each fsyncs the trajectory file): about a twentieth of the evaluation, 1 to 25.
 * A killed evaluation loses at most that many finished episodes besides those in flight (none of a small one), and
 * a large simulated one is not slowed down by an fsync per episode.
 */
export function storeBatchSize(episodes: number): number {
  return Math.max(1, Math.min(25, Math.floor(episodes / 20)));
}
