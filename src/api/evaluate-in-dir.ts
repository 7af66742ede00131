import type { Task } from "../domain";
import type { ImageSource } from "../envs";
import { environmentChoicesOf } from "../envs";
import type { EvaluationDir } from "../eval";
import { runStoredEvaluation } from "../eval";
import type { RoleModels } from "../models";
import { evalReport, viewCommand } from "../report";
import { describeInfraGate, infraErrorGate } from "../scoring";
import type { EvalOutcome } from "./eval-outcome";
import { judgeOf } from "./run-setup";
import { lockDir, recordFailure } from "./work-in-dir";

export type { EvalOutcome };

export interface EvalInDirOptions {
  maxInfraErrorRate: number;
  /** Default: the directory's stored concurrency. */
  concurrency?: number;
  /** Where a terminal task that names a prebuilt image gets it (default `auto`). */
  imageSource?: ImageSource;
  /** Network for the tasks that ask for it (allow_internet): the user's explicit grant, as data (default none). */
  allowInternet?: boolean;
  /** What a person would want to read: where the episodes are kept, what a resume reads back. */
  onMessage?: (text: string) => void;
  onProgress?: (done: number, total: number) => void;
}

/** Runs (or reads back) every episode under the directory's lock, stores the report and the state, closes the store. */
export async function evaluateInDir(
  evaluation: EvaluationDir<"eval">,
  tasks: readonly Task[],
  models: RoleModels,
  options: EvalInDirOptions,
): Promise<EvalOutcome> {
  const { store, config } = evaluation;
  const dir = store.paths.dir;
  const release = lockDir(store, dir);
  const say = options.onMessage ?? (() => {});
  say(`evaluation directory ${dir}`);
  try {
    store.setRunState("running");
    const { scores } = await runStoredEvaluation({
      store,
      commit: config.harness.commit,
      harness: evaluation.harness,
      tasks,
      repeats: config.repeats,
      seed: config.seed,
      model: models.agent,
      judge: judgeOf(models),
      customerModel: models.customer,
      concurrency: options.concurrency ?? config.concurrency,
      ...environmentChoicesOf(options),
      usage: models.usageRows,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onResume: (stored, total) =>
        say(
          `${stored} of ${total} episodes are stored and read back from the directory; running the other ${total - stored}`,
        ),
    });
    const report = evalReport({
      harness: config.harness.label,
      model: models.agent.id,
      seed: config.seed,
      repeats: config.repeats,
      scores,
      suiteOf: new Map(tasks.map((task) => [task.id, task.suite])),
      usage: store.usageTotals(),
    });
    store.setCandidateOutcome(config.harness.commit, {
      state: "evaluated",
      score: null,
      summary: report.summary,
    });
    const gate = infraErrorGate(scores, options.maxInfraErrorRate);
    // Too many infrastructure errors: the evaluation failed, and `--resume` runs those episodes again.
    store.setRunState(gate ? "failed" : "finished", gate ? describeInfraGate(gate) : null);
    say(`episodes kept in ${dir}; look into them with: ${viewCommand(dir)}`);
    return { report, scores, maxInfraErrorRate: options.maxInfraErrorRate, dir };
  } catch (error) {
    const inModule = recordFailure(store, error);
    if (inModule)
      say(
        `the evaluation stopped on an error in ${inModule.module} (${inModule.hook}); every episode before it is kept. Fix the module, then continue with: hsearch eval --resume ${dir}`,
      );
    throw error;
  } finally {
    release();
    store.close();
  }
}
