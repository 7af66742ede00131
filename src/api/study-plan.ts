/**
 * A study file loaded and checked, and what each of its steps will spend at most (`hsearch study --plan`): rollouts
 * and model calls per role, bounds no run of the study exceeds. Nothing is run or written but a temporary copy of
 * each search config for `planRun`.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { type PositionedDocument, readPositioned, validateDocument } from "../config";
import { HsearchError, resolveUserPath } from "../core";
import { isBuiltinSuite, type Task } from "../domain";
import { suiteHasCustomer } from "../envs";
import { loadHarness } from "../harness";
import { customerModelSpec, judgeModelSpec } from "../models";
import { isModulePath } from "../plugins";
import { DEFAULT_ANSWER_STEPS } from "../probes";
import { JUDGE_MAX_ATTEMPTS } from "../scoring";
import { agentTurnsPerRollout, MAX_AGENT_TURNS_PER_ROLLOUT } from "../search";
import {
  benchmarkName,
  type HarnessRef,
  type ReferenceValues,
  type StepTasks,
  type StudyFile,
  type StudyStep,
  stepWaves,
  studyFileSchema,
  studySteps,
} from "../study";
import { PAIRED_SUITE_DIR } from "../tasks";
import { planRun } from "./plan";
import { selectTasks, suiteProblem } from "./select-tasks";

/** The study `hsearch study` runs without a file: the protocol on both shipped suites, offline. */
export const DEFAULT_STUDY = "studies/default.yaml";

/**
 * Calls per role; a role that makes none (the rules judge, a scripted customer, the operators, CONVOLVE's offline
 * reflector and curator) is 0.
 */
export interface StudyCalls {
  agent: number;
  customer: number;
  judge: number;
  proposer: number;
  reflector: number;
  curator: number;
}

export const STUDY_ROLES = ["agent", "customer", "judge", "proposer", "reflector", "curator"] as const;

export interface PlannedStep {
  id: string;
  label: string;
  deps: string[];
  /** At most this many rollouts (a probe's episodes count as rollouts). */
  rollouts: number;
  /** At most this many model calls per role (a provider's retries of a failed call come on top). */
  calls: StudyCalls;
  /** How the bound was reached. */
  basis: string;
}

export interface StudyPlan {
  name: string;
  file: string;
  steps: PlannedStep[];
  /** The steps that can run together, in order. */
  waves: string[][];
  total: { rollouts: number; calls: StudyCalls };
}

/** A study file read, validated (errors name file, field and line) and its paths made absolute. */
export interface LoadedStudy {
  file: string;
  study: StudyFile;
  reference: ReferenceValues | null;
}

const referenceSchema = z
  .object({
    model: z.string().min(1),
    tables: z.record(z.string(), z.record(z.string(), z.string())),
  })
  .strict();

export function loadStudy(file: string | undefined, cwd: string): LoadedStudy {
  const path = resolveUserPath(file ?? DEFAULT_STUDY, cwd);
  const doc = readPositioned(path);
  const parsed = validateDocument(studyFileSchema, doc);
  const base = dirname(path);
  const at = (field: Array<string | number>) => {
    const line = doc.lineOf(field);
    return { file: path, field: field.join("."), ...(line ? { line } : {}) };
  };
  const harness = (value: string, field: Array<string | number>) => {
    const dir = resolveUserPath(value, base);
    try {
      loadHarness(dir);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new HsearchError(
        "bad_input",
        `${field.join(".")}: no usable harness at ${dir}: ${why}`,
        at(field),
      );
    }
    return dir;
  };
  const names = new Set<string>();
  const benchmarks = parsed.benchmarks.map((benchmark, index) => {
    const problem = suiteProblem(benchmark.suite);
    if (problem)
      throw new HsearchError(
        "bad_input",
        problem.replace("--suite", "suite"),
        at(["benchmarks", index, "suite"]),
      );
    const name = benchmarkName(benchmark);
    if (names.has(name))
      throw new HsearchError(
        "bad_input",
        `two benchmarks are named ${name}: give one a different name`,
        at(["benchmarks", index, benchmark.name ? "name" : "suite"]),
      );
    names.add(name);
    const conditions = Object.fromEntries(
      Object.entries(benchmark.conditions).map(([key, value]) => [
        key,
        harness(value, ["benchmarks", index, "conditions", key]),
      ]),
    ) as typeof benchmark.conditions;
    const { tasks: _given, ...rest } = benchmark;
    return {
      ...rest,
      name,
      suite: isBuiltinSuite(benchmark.suite) ? benchmark.suite : resolveUserPath(benchmark.suite, base),
      ...tasksOfBenchmark(benchmark, base, cwd),
      initial: harness(benchmark.initial, ["benchmarks", index, "initial"]),
      conditions,
    };
  });
  const referenceFile = parsed.reference === null ? null : resolveUserPath(parsed.reference, base);
  return {
    file: path,
    study: { ...parsed, benchmarks, reference: referenceFile },
    reference: referenceFile === null ? null : loadReference(referenceFile, doc),
  };
}

/**
 * A benchmark's task directory: the file's `tasks` (null: the shipped suite); without one, a terminal benchmark takes
 * the paired Terminal-Bench 2 suite `tasks pair` writes by default (PAIRED_SUITE_DIR under the directory the study
 * runs in) when that directory is there, as the study's terminal benchmark was.
 */
function tasksOfBenchmark(
  benchmark: StudyFile["benchmarks"][number],
  base: string,
  cwd: string,
): { tasks?: string } {
  if (benchmark.tasks === null) return {};
  if (benchmark.tasks !== undefined) return { tasks: resolveUserPath(benchmark.tasks, base) };
  const paired = join(cwd, PAIRED_SUITE_DIR);
  return benchmark.suite === "terminal" && isDirectory(paired) ? { tasks: paired } : {};
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function loadReference(file: string, studyDoc: PositionedDocument): ReferenceValues {
  let doc: PositionedDocument;
  try {
    doc = readPositioned(file);
  } catch (error) {
    const line = studyDoc.lineOf(["reference"]);
    const why = error instanceof Error ? error.message : String(error);
    throw new HsearchError("bad_input", `reference: ${why}`, {
      file: studyDoc.file,
      field: "reference",
      ...(line ? { line } : {}),
    });
  }
  return validateDocument(referenceSchema, doc);
}

/** The study's steps, only the benchmarks `only` names (all without it); an unknown name is bad input. */
export function chosenSteps(study: StudyFile, only: readonly string[] | null): StudyStep[] {
  const names = study.benchmarks.map(benchmarkName);
  for (const name of only ?? [])
    if (!names.includes(name))
      throw new HsearchError("bad_input", `--only ${name}: the study's benchmarks are ${names.join(", ")}`, {
        field: "only",
      });
  const chosen = only ? study.benchmarks.filter((b) => only.includes(benchmarkName(b))) : study.benchmarks;
  return studySteps({ ...study, benchmarks: chosen });
}

export interface StudyPlanOptions {
  cwd?: string;
  only?: readonly string[];
}

/** `hsearch study --plan`: every step with its rollouts and model calls at most, before anything runs. */
export async function planStudy(
  file: string | undefined,
  options: StudyPlanOptions = {},
): Promise<StudyPlan> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadStudy(file, cwd);
  return planLoadedStudy(loaded, chosenSteps(loaded.study, options.only ?? null), cwd);
}

export async function planLoadedStudy(
  loaded: LoadedStudy,
  steps: readonly StudyStep[],
  cwd: string,
): Promise<StudyPlan> {
  const { study } = loaded;
  const roles = {
    customer: customerModelSpec(study.models.customer, study.models.task) !== undefined,
    judge: judgeModelSpec(study.models.judge) !== undefined,
  };
  const taskCache = new Map<string, Task[]>();
  const tasksOf = async (selection: StepTasks) => {
    const key = JSON.stringify(selection);
    const cached = taskCache.get(key);
    if (cached) return cached;
    const { tasks } = await selectTasks(taskSelection(selection), { cwd });
    taskCache.set(key, tasks);
    return tasks;
  };
  const planned: PlannedStep[] = [];
  for (const step of steps) planned.push(await planStep(step, tasksOf, roles, cwd));
  const total = { rollouts: 0, calls: noCalls() };
  for (const step of planned) {
    total.rollouts += step.rollouts;
    for (const role of STUDY_ROLES) total.calls[role] += step.calls[role];
  }
  return { name: study.name, file: loaded.file, steps: planned, waves: stepWaves(steps), total };
}

export function noCalls(): StudyCalls {
  return { agent: 0, customer: 0, judge: 0, proposer: 0, reflector: 0, curator: 0 };
}

/** What `selectTasks` takes for a step's tasks: a task directory of a built-in suite, or the suite alone. */
export function taskSelection(tasks: StepTasks) {
  const { suite, split, kind } = tasks;
  return {
    split,
    ...(kind ? { kind } : {}),
    ...(tasks.tasks !== undefined && !isModulePath(suite) ? { tasks: tasks.tasks } : {}),
    suite,
  };
}

async function planStep(
  step: StudyStep,
  tasksOf: (selection: StepTasks) => Promise<Task[]>,
  roles: { customer: boolean; judge: boolean },
  cwd: string,
): Promise<PlannedStep> {
  const { spec } = step;
  const base = { id: step.id, label: step.label, deps: step.deps };
  if (spec.kind === "search") {
    const plan = await planSearchConfig(spec.config, cwd);
    const rollouts = plan.rollouts.search.max + plan.rollouts.final;
    // The seed's rollouts run with its step budget; a proposal may raise it, up to the schema's limits.
    const seedRollouts = Math.min(rollouts, plan.tasks.search * plan.repeats);
    const seedTurns = plan.calls.perRollout.agent;
    const agent = seedRollouts * seedTurns + (rollouts - seedRollouts) * MAX_AGENT_TURNS_PER_ROLLOUT;
    const retailShare = plan.calls.customer
      ? plan.calls.customer.max / plan.calls.perRollout.customer / rollouts
      : 0;
    return {
      ...base,
      rollouts,
      calls: {
        agent,
        customer: plan.calls.customer ? Math.ceil(retailShare * (agent + rollouts)) : 0,
        judge: plan.calls.judge?.max ?? 0,
        proposer: plan.calls.proposer?.max ?? 0,
        reflector: plan.calls.reflector?.max ?? 0,
        curator: plan.calls.curator?.max ?? 0,
      },
      basis: `the search's plan (hsearch run --plan): R0's ${seedRollouts} rollouts × ${seedTurns} turns, every proposal's at the harness schema's step limits`,
    };
  }
  const tasks = await tasksOf(spec.tasks);
  const repeats = spec.kind === "eval" ? spec.repeats : spec.kind === "challenge" ? spec.runs : 1;
  const turns = harnessTurns(spec.harness);
  // The belief probe asks once after the episode; the challenge lets the agent answer in a few turns.
  const extra = spec.kind === "beliefs" ? 1 : spec.kind === "challenge" ? DEFAULT_ANSWER_STEPS : 0;
  const perRollout = turns.turns + extra;
  const rollouts = tasks.length * repeats;
  const retail = tasks.filter((task) => suiteHasCustomer(task.suite)).length * repeats;
  const blocked = tasks.filter((task) => task.kind === "blocked").length * repeats;
  const judged = spec.kind !== "beliefs" && roles.judge;
  return {
    ...base,
    rollouts,
    calls: {
      agent: rollouts * perRollout,
      customer: roles.customer ? retail * (1 + perRollout) : 0,
      judge: judged ? blocked * JUDGE_MAX_ATTEMPTS : 0,
      proposer: 0,
      reflector: 0,
      curator: 0,
    },
    basis: `${tasks.length} tasks × ${repeats} × ${perRollout} agent turns (${turns.basis}${extra ? ` + ${extra} probe turns` : ""})`,
  };
}

function harnessTurns(ref: HarnessRef): { turns: number; basis: string } {
  if ("path" in ref) {
    const harness = loadHarness(ref.path);
    return { turns: agentTurnsPerRollout(harness.config), basis: "the harness's step budget" };
  }
  return {
    turns: MAX_AGENT_TURNS_PER_ROLLOUT,
    basis: "the harness a search selects is not known yet: every step budget at the harness schema's limit",
  };
}

async function planSearchConfig(config: Record<string, unknown>, cwd: string) {
  const dir = mkdtempSync(join(tmpdir(), "hsearch-study-plan-"));
  try {
    const file = join(dir, "search.json");
    writeFileSync(file, JSON.stringify(config));
    return await planRun(file, { cwd });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
