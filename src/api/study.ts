/**
 * `hsearch study` as a library function: the study's steps (src/study) run through the library's own functions —
 * `evaluate`/`resumeEvaluation`, `startRun`/`resumeRun`, `exportHarness`, the probes — each in its own directory
 * under the study directory, a step done when its directory says finished. A killed study resumes from what its
 * directories hold (each their own resume), and its report is built from stored results alone.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { HsearchError, newRunId } from "../core";
import { openRunStore } from "../store";
import {
  type HarnessRef,
  readStepResult,
  reportHash,
  type StepResult,
  type StudyFile,
  type StudyStep,
  type StudyTable,
  selectedHarnessDir,
  stepDir,
  storedState,
  studyReportFiles,
  studyTables,
} from "../study";
import { exportHarness } from "./candidates";
import { evaluate, resumeEvaluation } from "./evaluate";
import { probeBeliefs, probeChallenge } from "./probe";
import { EventLog, handleOver } from "./run-events";
import { resumeRun, startRun } from "./start-run";
import {
  chosenSteps,
  type LoadedStudy,
  loadStudy,
  noCalls,
  type PlannedStep,
  planLoadedStudy,
  type StudyCalls,
  type StudyPlan,
  taskSelection,
} from "./study-plan";

/** What a study reports as it goes, in order. */
export type StudyEvent =
  | { type: "started"; dir: string; steps: number; alreadyDone: number; plan: StudyPlan }
  | { type: "step"; step: string; label: string; state: "started" | "finished" | "done-before" }
  /** The whole study's progress: its share done (by planned rollouts) and the time left at this session's pace. */
  | { type: "progress"; step: string; share: number; secondsLeft: number | null }
  | { type: "message"; text: string }
  | { type: "finished"; dir: string; reportDir: string; hash: string; tables: number };

export interface StudyOptions {
  /** Relative paths are resolved here; default process.cwd(). */
  cwd?: string;
  /** The variables providers read their keys from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The study directory; default runs/study-<name>-… under cwd. */
  out?: string;
  /** Only these benchmarks (by name). */
  only?: readonly string[];
  /** Steps at once (each runs its own rollouts `concurrency` at once); default 2. */
  stepsAtOnce?: number;
  /** Stops the study: steps in flight end (a search cancelled, to be resumed), nothing new starts. */
  signal?: AbortSignal;
}

/** What one step spent, read from its directory: rollouts (a probe's episodes) and model calls per role. */
export interface StepSpend {
  id: string;
  rollouts: number;
  calls: StudyCalls;
}

export interface StudyResult {
  dir: string;
  reportDir: string;
  /** sha256 of the report's files: the same for a resumed study as for an uninterrupted one. */
  hash: string;
  tables: StudyTable[];
  plan: StudyPlan;
  spent: StepSpend[];
}

export interface StudyHandle extends AsyncIterable<StudyEvent> {
  on(listener: (event: StudyEvent) => void): () => void;
  readonly result: Promise<StudyResult>;
}

/** The study directory's record of its study, so `resumeStudy` runs the same one whatever files changed since. */
const STUDY_RECORD = "study.json";
const STUDY_FORMAT = 1;

interface StudyRecord {
  format: number;
  file: string;
  study: StudyFile;
  reference: LoadedStudy["reference"];
  only: string[] | null;
}

/** Runs a study file (default studies/default.yaml) in a new study directory. Bad input rejects before it is made. */
export function runStudy(file: string | undefined, options: StudyOptions = {}): StudyHandle {
  return handleOf(async (events) => {
    const cwd = options.cwd ?? process.cwd();
    const loaded = loadStudy(file, cwd);
    const only = options.only ? [...options.only] : null;
    const steps = chosenSteps(loaded.study, only);
    const plan = await planLoadedStudy(loaded, steps, cwd);
    const dir = options.out
      ? resolve(cwd, options.out)
      : resolve(
          cwd,
          "runs",
          newRunId(`study-${loaded.study.name}`, new Date(), randomBytes(8).toString("hex")),
        );
    if (existsSync(dir) && readdirSync(dir).length > 0)
      throw new HsearchError(
        "bad_input",
        `${dir} is not empty: give a new --out, or continue a study there with --resume`,
        { file: dir, field: "out" },
      );
    mkdirSync(dir, { recursive: true });
    const record: StudyRecord = { format: STUDY_FORMAT, ...loaded, only };
    writeAtomic(join(dir, STUDY_RECORD), `${JSON.stringify(record, null, 2)}\n`);
    return execute(dir, record, steps, plan, options, events);
  });
}

/** Continues the study in `dir` from what its steps' directories hold; a finished study's report is made again. */
export function resumeStudy(dir: string, options: Omit<StudyOptions, "out"> = {}): StudyHandle {
  return handleOf(async (events) => {
    const cwd = options.cwd ?? process.cwd();
    const studyDir = resolve(cwd, dir);
    const record = readRecord(studyDir);
    const only = options.only ? [...options.only] : record.only;
    const steps = chosenSteps(record.study, only);
    const plan = await planLoadedStudy(record, steps, cwd);
    return execute(studyDir, { ...record, only }, steps, plan, options, events);
  });
}

function readRecord(dir: string): StudyRecord {
  const file = join(dir, STUDY_RECORD);
  if (!existsSync(file))
    throw new HsearchError("bad_input", `${dir} is not a study directory: it has no ${STUDY_RECORD}`, {
      file: dir,
    });
  let record: StudyRecord;
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as StudyRecord;
  } catch (error) {
    throw new HsearchError(
      "bad_input",
      `${file}: ${error instanceof Error ? error.message : String(error)}`,
      {
        file,
      },
    );
  }
  if (record.format !== STUDY_FORMAT)
    throw new HsearchError(
      "bad_input",
      `${file}: study format ${record.format}, this hsearch reads ${STUDY_FORMAT}`,
      {
        file,
      },
    );
  return record;
}

function handleOf(work: (events: EventLog<StudyEvent>) => Promise<StudyResult>): StudyHandle {
  const events = new EventLog<StudyEvent>();
  return handleOver(events, () => work(events));
}

async function execute(
  dir: string,
  record: StudyRecord,
  steps: readonly StudyStep[],
  plan: StudyPlan,
  options: StudyOptions,
  events: EventLog<StudyEvent>,
): Promise<StudyResult> {
  const { study } = record;
  const cwd = options.cwd ?? process.cwd();
  const planned = new Map(plan.steps.map((step) => [step.id, step]));
  const weight = (id: string) => Math.max(1, planned.get(id)?.rollouts ?? 1);
  const whole = steps.reduce((sum, step) => sum + weight(step.id), 0);
  const fraction = new Map<string, number>();
  const done = new Set(steps.filter((step) => isDone(dir, step)).map((step) => step.id));
  for (const id of done) fraction.set(id, 1);
  events.emit({ type: "started", dir, steps: steps.length, alreadyDone: done.size, plan });
  const startedAt = Date.now();
  const shareNow = () => [...fraction].reduce((sum, [id, f]) => sum + weight(id) * f, 0) / whole;
  const startShare = shareNow();
  const progress = (step: string, part: number) => {
    fraction.set(step, Math.min(1, Math.max(fraction.get(step) ?? 0, part)));
    const share = shareNow();
    const gained = share - startShare;
    const elapsed = (Date.now() - startedAt) / 1000;
    const secondsLeft = gained > 0 ? (elapsed / gained) * (1 - share) : null;
    events.emit({ type: "progress", step, share, secondsLeft });
  };
  for (const step of steps)
    if (done.has(step.id))
      events.emit({ type: "step", step: step.id, label: step.label, state: "done-before" });
  const context: StepContext = { dir, study, cwd, options, events, progress };
  await runReady(steps, done, options.stepsAtOnce ?? 2, options.signal, (step) => runStep(step, context));
  const results = new Map<string, StepResult>(steps.map((step) => [step.id, readStepResult(dir, step)]));
  const tables = studyTables({ ...study, benchmarks: benchmarksOf(study, steps) }, results, record.reference);
  const files = studyReportFiles(`${study.name}: the self-awareness study`, tables, steps);
  const reportDir = join(dir, "report");
  writeReport(reportDir, files);
  const hash = reportHash(files);
  events.emit({ type: "finished", dir, reportDir, hash, tables: tables.length });
  return { dir, reportDir, hash, tables, plan, spent: steps.map((step) => spentBy(dir, step)) };
}

function benchmarksOf(study: StudyFile, steps: readonly StudyStep[]): StudyFile["benchmarks"] {
  const names = new Set(steps.map((step) => step.benchmark));
  return study.benchmarks.filter((b) => b.name !== undefined && names.has(b.name));
}

/** Runs every step once its dependencies are done, `atOnce` at a time; the first failure stops new starts. */
async function runReady(
  steps: readonly StudyStep[],
  done: Set<string>,
  atOnce: number,
  signal: AbortSignal | undefined,
  run: (step: StudyStep) => Promise<void>,
): Promise<void> {
  const waiting = steps.filter((step) => !done.has(step.id));
  const running = new Map<string, Promise<void>>();
  let failure: { error: unknown } | null = null;
  while ((waiting.length > 0 || running.size > 0) && !failure) {
    if (signal?.aborted) break;
    while (running.size < atOnce) {
      const ready = waiting.find((step) => step.deps.every((dep) => done.has(dep)));
      if (!ready) break;
      waiting.splice(waiting.indexOf(ready), 1);
      running.set(
        ready.id,
        run(ready).then(
          () => {
            done.add(ready.id);
            running.delete(ready.id);
          },
          (error: unknown) => {
            failure ??= { error };
            running.delete(ready.id);
          },
        ),
      );
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  await Promise.all(running.values());
  if (failure) throw (failure as { error: unknown }).error;
  if (signal?.aborted) throw new HsearchError("cancelled", "the study was stopped; --resume continues it");
}

interface StepContext {
  dir: string;
  study: StudyFile;
  cwd: string;
  options: StudyOptions;
  events: EventLog<StudyEvent>;
  progress: (step: string, part: number) => void;
}

function isDone(dir: string, step: StudyStep): boolean {
  if (storedState(stepDir(dir, step)) !== "finished") return false;
  return step.spec.kind !== "search" || existsSync(join(selectedHarnessDir(dir, step.id), "harness.yaml"));
}

async function runStep(step: StudyStep, context: StepContext): Promise<void> {
  const { dir, study, cwd, options, events } = context;
  events.emit({ type: "step", step: step.id, label: step.label, state: "started" });
  const out = stepDir(dir, step);
  mkdirSync(dirname(out), { recursive: true });
  const state = storedState(out);
  // A directory with no run in it was being made when the study was killed: nothing in it to keep.
  if (state === null) rmSync(out, { recursive: true, force: true });
  const say = (text: string) => events.emit({ type: "message", text: `${step.id}: ${text}` });
  const onProgress = (n: number, total: number) => context.progress(step.id, total === 0 ? 0 : n / total);
  const models = { agent: study.models.task, judge: study.models.judge, customer: study.models.customer };
  const common = {
    cwd,
    ...(options.env ? { env: options.env } : {}),
    concurrency: study.concurrency,
    onProgress,
  };
  const harness = (ref: HarnessRef) => ("path" in ref ? ref.path : selectedHarnessDir(dir, ref.selected));
  const { spec } = step;
  if (spec.kind === "eval") {
    if (state === null) {
      await evaluate(harness(spec.harness), taskSelection(spec.tasks), models, {
        ...common,
        out,
        seed: spec.seed,
        repeats: spec.repeats,
      });
    } else if (state !== "finished") {
      say("resuming its evaluation");
      await resumeEvaluation(out, common);
    }
  } else if (spec.kind === "search") {
    if (state !== "finished") {
      const handle =
        state === null
          ? startRun(spec.config, {
              cwd,
              out,
              ...(options.env ? { env: options.env } : {}),
              ...signalOf(options),
            })
          : resumeRun(out, { cwd, ...(options.env ? { env: options.env } : {}), ...signalOf(options) });
      const rounds = Number(spec.config.rounds);
      handle.on((event) => {
        if (event.type === "round") context.progress(step.id, (event.round + 1) / (rounds + 1));
        if (event.type === "message") say(event.text);
      });
      const result = await handle.result;
      if (result.status.state !== "finished")
        throw new HsearchError(
          "cancelled",
          `the search ${step.id} stopped (${result.status.state}${result.status.error ? `: ${result.status.error}` : ""}); --resume continues the study`,
        );
    }
    await exportSelected(out, selectedHarnessDir(dir, step.id), cwd);
  } else {
    // A probe has no resume of its own: one that was killed is run again from the start (the same seeds).
    if (state !== "finished") {
      rmSync(out, { recursive: true, force: true });
      const probeOptions = { ...common, out, seed: spec.seed };
      if (spec.kind === "beliefs")
        await probeBeliefs(harness(spec.harness), taskSelection(spec.tasks), models, {
          ...probeOptions,
          resamples: spec.resamples,
        });
      else
        await probeChallenge(harness(spec.harness), taskSelection(spec.tasks), models, {
          ...probeOptions,
          runs: spec.runs,
        });
    }
  }
  context.progress(step.id, 1);
  events.emit({ type: "step", step: step.id, label: step.label, state: "finished" });
}

function signalOf(options: StudyOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

/** The selected harness written beside its run, made whole in a temporary directory first, then renamed. */
async function exportSelected(runDir: string, target: string, cwd: string): Promise<void> {
  if (existsSync(join(target, "harness.yaml"))) return;
  const partial = `${target}.partial`;
  rmSync(partial, { recursive: true, force: true });
  rmSync(target, { recursive: true, force: true });
  await exportHarness(runDir, "selected", partial, { cwd });
  renameSync(partial, target);
}

function spentBy(dir: string, step: StudyStep): StepSpend {
  const store = openRunStore(stepDir(dir, step), { readonly: true });
  try {
    const rollouts =
      step.spec.kind === "beliefs" || step.spec.kind === "challenge"
        ? store.listProbeEpisodes().length
        : store.countRollouts();
    const calls = noCalls();
    for (const total of store.usageTotals())
      if (total.role in calls) calls[total.role as keyof StudyCalls] += total.calls + total.cached_calls;
    return { id: step.id, rollouts, calls };
  } finally {
    store.close();
  }
}

/** Each file written whole (a temporary name, then renamed), so a killed study never leaves half a report. */
function writeReport(reportDir: string, files: ReadonlyMap<string, string>): void {
  for (const [path, content] of files) {
    const file = join(reportDir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeAtomic(file, content);
  }
}

function writeAtomic(file: string, content: string): void {
  const partial = join(dirname(file), `.${basename(file)}.partial`);
  writeFileSync(partial, content);
  renameSync(partial, file);
}

export { DEFAULT_STUDY, planStudy, STUDY_ROLES, type StudyPlanOptions } from "./study-plan";
export type { PlannedStep, StudyCalls, StudyPlan };
