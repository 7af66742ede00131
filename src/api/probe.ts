/**
 * The know and hold probes as library functions (`hsearch probe beliefs|challenge`, the study's probes): each keeps
 * its episodes in a directory like an evaluation's, the report stored at the end (docs/DESIGN.md §6).
 */
import { randomBytes } from "node:crypto";
import { basename, dirname, resolve } from "node:path";
import { assertOutputApart, newRunId, resolveUserPath } from "../core";
import type { Task } from "../domain";
import { type ImageSource, imageSourceChosen, internetAllowed } from "../envs";
import type { HarnessTaskConfig } from "../eval";
import { createEvaluationDir, type EvaluationDir, evaluationKey, type NewEvaluationDir } from "../eval";
import type { Trajectory } from "../harness";
import { type Harness, loadHarness } from "../harness";
import { addRoleUsage, type RoleModels, type RoleUsage } from "../models";
import {
  type BeliefComparison,
  type BeliefSummary,
  type BeliefTaskRow,
  type ChallengeProbeResult,
  collectBeliefs,
  compareBeliefs,
  runChallengeProbe,
  summariseBeliefs,
} from "../probes";
import type { ProbeReportInput } from "../scoring";
import { DEFAULT_RESAMPLES } from "../scoring";
import { type EvaluateModels, type HarnessTaskOptions, harnessTaskSetup } from "./harness-task-setup";
import { judgeOf } from "./run-setup";
import { recordedTasks, type TaskSelection } from "./select-tasks";
import { lockDir } from "./work-in-dir";

/** Every role's usage together, with the per-role parts. */
export type ProbeUsage = RoleUsage & { by_role: ReturnType<RoleModels["usage"]> };

export interface BeliefsReport extends BeliefSummary {
  harness: string;
  model: string;
  seed: number;
  resamples: number;
  tasks: BeliefTaskRow[];
  /** The second harness (`compare`); `difference` is first − second over blocked–feasible source pairs. */
  compare?: BeliefSummary & { harness: string; tasks: BeliefTaskRow[]; difference: BeliefComparison };
  usage: ProbeUsage;
}

export interface ChallengeReport extends ChallengeProbeResult {
  usage: ProbeUsage;
}

/** A probe's inputs once checked: the harness, its tasks, the models and what the directory records of them. */
export interface ProbeSetup {
  harness: Harness;
  harnessDir: string;
  /** The task directory given instead of the shipped suites, as given (an output may not overlap it). */
  tasksDir?: string;
  tasks: Task[];
  /** What the directory records of the task selection and of the models (`recordedTasks`, the model config). */
  recorded: Pick<HarnessTaskConfig, "tasks" | "models" | "settings" | "model_call_seconds" | "cache">;
  models: RoleModels;
  seed: number;
  concurrency: number;
  /** Where a terminal task that names a prebuilt image gets it (`HSEARCH_IMAGE_SOURCE`, else `auto`). */
  imageSource: ImageSource;
  allowInternet: boolean;
  /** The probe's directory; default runs/<beliefs|challenge>-<harness>-… under cwd. */
  out?: string;
  cwd: string;
  onMessage?: (text: string) => void;
  onProgress?: (done: number, total: number) => void;
}

/** The probe's directory (`out`) is named runs/<beliefs|challenge>-<harness>-… by default. */
export interface ProbeOptions extends HarnessTaskOptions {}

/** `hsearch probe beliefs` as a library function; `compare` a second harness (paired differences first − second). */
export async function probeBeliefs(
  harness: string,
  tasks: TaskSelection,
  models: EvaluateModels | string,
  options: ProbeOptions & { compare?: string; resamples?: number } = {},
): Promise<BeliefsReport & { dir: string }> {
  const prepared = await probeSetup(harness, tasks, models, options);
  return beliefsInDir(prepared, {
    ...(options.compare !== undefined ? { compare: options.compare } : {}),
    resamples: options.resamples ?? DEFAULT_RESAMPLES,
  });
}

/** `hsearch probe challenge` as a library function: `runs` independent runs per task (default 3). */
export async function probeChallenge(
  harness: string,
  tasks: TaskSelection,
  models: EvaluateModels | string,
  options: ProbeOptions & { runs?: number } = {},
): Promise<ChallengeReport & { dir: string }> {
  const prepared = await probeSetup(harness, tasks, models, options);
  return challengeInDir(prepared, { runs: options.runs ?? 3 });
}

async function probeSetup(
  harness: string,
  tasks: TaskSelection,
  models: EvaluateModels | string,
  options: ProbeOptions,
): Promise<ProbeSetup> {
  const setup = await harnessTaskSetup(harness, tasks, models, options);
  return {
    harness: setup.harness,
    harnessDir: setup.harnessDir,
    ...(tasks.tasks !== undefined ? { tasksDir: tasks.tasks } : {}),
    tasks: setup.selected.tasks,
    recorded: {
      tasks: recordedTasks(tasks, setup.selected, { cwd: setup.cwd }),
      models: setup.specs,
      settings: {},
    },
    models: setup.models,
    seed: options.seed ?? 1,
    concurrency: setup.concurrency,
    imageSource: imageSourceChosen(options.env ?? process.env),
    allowInternet: internetAllowed(options.env ?? process.env),
    ...(options.out !== undefined ? { out: options.out } : {}),
    cwd: setup.cwd,
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}

/** The beliefs probe of a checked setup, kept in a new directory. */
export async function beliefsInDir(
  prepared: ProbeSetup,
  options: { compare?: string; resamples: number },
): Promise<BeliefsReport & { dir: string }> {
  const { harness, tasks, models } = prepared;
  const model = models.agent;
  const compareDir =
    options.compare === undefined ? undefined : resolveUserPath(options.compare, prepared.cwd);
  const second = compareDir === undefined ? undefined : loadHarness(compareDir);
  const bootstrap = { seed: prepared.seed, resamples: options.resamples };
  const { evaluation, keeper } = await openProbeDir(
    {
      kind: "probe_beliefs",
      name: `beliefs ${basename(prepared.harnessDir)}`,
      harness: { harness, dir: prepared.harnessDir },
      ...(second && compareDir ? { compare: { harness: second, dir: compareDir } } : {}),
      config: { ...probeConfig(prepared), resamples: options.resamples },
    },
    prepared,
  );
  const total = tasks.length * (second ? 2 : 1);
  let done = 0;
  const collect = (which: Harness, commit: string) =>
    collectBeliefs({
      harness: which,
      tasks,
      model,
      seed: prepared.seed,
      concurrency: prepared.concurrency,
      imageSource: prepared.imageSource,
      allowInternet: prepared.allowInternet,
      customerModel: models.customer,
      onEpisode: () => prepared.onProgress?.(++done, total),
      onRow: (row, trajectory) => keeper.keep(commit, trajectory, row),
    });
  let rows: BeliefTaskRow[];
  let secondRows: BeliefTaskRow[] | undefined;
  try {
    rows = await collect(harness, evaluation.config.harness.commit);
    const compared = evaluation.config.compare?.commit;
    secondRows = second && compared ? await collect(second, compared) : undefined;
  } catch (error) {
    keeper.fail(error);
    throw error;
  }
  const report: BeliefsReport = {
    harness: harness.label,
    model: model.id,
    seed: prepared.seed,
    resamples: options.resamples,
    ...summariseBeliefs(rows, bootstrap),
    tasks: rows,
    usage: usageOf(models),
  };
  if (second && secondRows) {
    report.compare = {
      harness: second.label,
      ...summariseBeliefs(secondRows, bootstrap),
      tasks: secondRows,
      difference: compareBeliefs(tasks, rows, secondRows, bootstrap),
    };
    report.usage = usageOf(models);
  }
  keeper.finish(report);
  return { ...report, dir: evaluation.store.paths.dir };
}

/** The challenge probe of a checked setup, kept in a new directory. */
export async function challengeInDir(
  prepared: ProbeSetup,
  options: { runs: number },
): Promise<ChallengeReport & { dir: string }> {
  const { harness, tasks, models } = prepared;
  const { evaluation, keeper } = await openProbeDir(
    {
      kind: "probe_challenge",
      name: `challenge ${basename(prepared.harnessDir)}`,
      harness: { harness, dir: prepared.harnessDir },
      config: { ...probeConfig(prepared), runs: options.runs },
    },
    prepared,
  );
  const commit = evaluation.config.harness.commit;
  let result: ChallengeProbeResult;
  try {
    result = await runChallengeProbe({
      harness,
      tasks,
      model: models.agent,
      judge: judgeOf(models),
      runs: options.runs,
      seed: prepared.seed,
      concurrency: prepared.concurrency,
      imageSource: prepared.imageSource,
      allowInternet: prepared.allowInternet,
      customerModel: models.customer,
      onEpisode: (done, total) => prepared.onProgress?.(done, total),
      onOutcome: (outcome, trajectory) => keeper.keep(commit, trajectory, outcome),
    });
  } catch (error) {
    keeper.fail(error);
    throw error;
  }
  const report = { ...result, usage: usageOf(models) };
  keeper.finish(report);
  return { ...report, dir: evaluation.store.paths.dir };
}

/** `out` (its name is the id), else `runs/<prefix>-<harness>-…` under cwd, named like a run. */
/**
 * `--out DIR` (its name is the id; refused where it overlaps the harness or the task directory it reads), else
 * `runs/<id>` under the working directory, named like a run.
 */
export function evaluationLocation(
  out: string | undefined,
  inputs: { harnessDir: string; tasks?: string | undefined },
  cwd: string,
  kind: "eval" | "probe_beliefs" | "probe_challenge" = "eval",
) {
  const harnessName = basename(inputs.harnessDir);
  if (out !== undefined) {
    const dir = resolve(cwd, out);
    assertOutputApart({ path: dir, name: "--out" }, [
      { path: inputs.harnessDir, name: "the harness" },
      ...(inputs.tasks === undefined ? [] : [{ path: resolveUserPath(inputs.tasks, cwd), name: "--tasks" }]),
    ]);
    return { root: dirname(dir), id: basename(dir) };
  }
  const prefix = kind === "eval" ? "eval" : kind === "probe_beliefs" ? "beliefs" : "challenge";
  return {
    root: resolve(cwd, "runs"),
    id: newRunId(`${prefix}-${harnessName}`, new Date(), randomBytes(8).toString("hex")),
  };
}

/**
 * Where a probe keeps its episodes while it runs: its directory's store under the directory's lock. Each episode is
 * stored as soon as it is done (with this session's usage); the probe's report is stored at the end.
 */
interface ProbeKeeper {
  keep(commit: string, trajectory: Trajectory, result: object): void;
  finish(report: ProbeReportInput): void;
  fail(error: unknown): void;
}

async function openProbeDir<K extends "probe_beliefs" | "probe_challenge">(
  spec: Omit<NewEvaluationDir<K>, "root" | "id">,
  prepared: ProbeSetup,
): Promise<{ evaluation: EvaluationDir<K>; keeper: ProbeKeeper }> {
  const { root, id } = evaluationLocation(
    prepared.out,
    { harnessDir: prepared.harnessDir, tasks: prepared.tasksDir },
    prepared.cwd,
    spec.kind,
  );
  const evaluation = await createEvaluationDir({ ...spec, root, id });
  const { store } = evaluation;
  const release = lockDir(store, store.paths.dir);
  prepared.onMessage?.(`episodes kept in ${store.paths.dir}`);
  const probe = spec.kind === "probe_beliefs" ? "beliefs" : "challenge";
  const session = store.beginUsageSession();
  const splitOf = new Map(prepared.tasks.map((task) => [task.id, task.split]));
  const seedCommit = evaluation.config.harness.commit;
  const close = () => {
    release();
    store.close();
  };
  return {
    evaluation,
    keeper: {
      keep: (commit, trajectory, result) => {
        store.recordProbeEpisodes(commit, [
          {
            probe,
            key: evaluationKey(commit, {
              task: { id: trajectory.task_id },
              seed: trajectory.seed,
              repeat: trajectory.repeat,
            }),
            split: splitOf.get(trajectory.task_id) ?? "search",
            result,
            trajectory,
          },
        ]);
        store.putSessionUsage(session, prepared.models.usageRows());
      },
      finish: (report) => {
        try {
          store.putSessionUsage(session, prepared.models.usageRows());
          store.setCandidateOutcome(seedCommit, { state: "evaluated", score: null, summary: report });
          store.setRunState("finished");
        } finally {
          close();
        }
      },
      fail: (error) => {
        try {
          store.setRunState("failed", error instanceof Error ? error.message : String(error));
        } finally {
          close();
        }
      },
    },
  };
}

/** The config of a probe's directory shared by both probes: tasks, models, seed, concurrency. */
function probeConfig(prepared: ProbeSetup) {
  return { ...prepared.recorded, seed: prepared.seed, concurrency: prepared.concurrency };
}

function usageOf(models: RoleModels): ProbeUsage {
  const byRole = models.usage();
  return { ...addRoleUsage(Object.values(byRole)), by_role: byRole };
}
