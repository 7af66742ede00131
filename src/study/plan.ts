import type { Split } from "../domain";
import { CONVOLVE } from "../search";
import { CONDITIONS, type Condition, type StudyBenchmark, type StudyFile } from "./study-schema";

/**
 * The study as a DAG of steps, pure: each step one evaluation, search or probe kept in its own directory under the
 * study directory (its id is that path), run when the steps it depends on are done (docs/guide/study.md).
 */

export const OBJECTIVES = ["sa-only", "joint"] as const;
export type StudyObjective = (typeof OBJECTIVES)[number];

/** A search of the study: one per objective (harness search), and CONVOLVE's when `search.convolve` asks for it. */
export type StudySearch = StudyObjective | typeof CONVOLVE;

/** The initial harness (R0), or the harness a search selected. */
export type HarnessRef = { path: string } | { selected: string };

/** A benchmark's tasks of one split, and which of them. */
export interface StepTasks {
  suite: string;
  tasks?: string;
  split: Split;
  kind?: "blocked" | "feasible";
}

export type StepSpec =
  | { kind: "eval"; harness: HarnessRef; tasks: StepTasks; repeats: number; seed: number }
  | {
      kind: "search";
      objective: StudyObjective;
      /** The search config as `startRun` takes it (paths relative to the study file's directory). */
      config: Record<string, unknown>;
    }
  | { kind: "beliefs"; harness: HarnessRef; tasks: StepTasks; resamples: number; seed: number }
  | { kind: "challenge"; harness: HarnessRef; tasks: StepTasks; runs: number; seed: number };

export interface StudyStep {
  /** The step's directory under the study directory: `<benchmark>/<step>`. */
  id: string;
  benchmark: string;
  /** What it is for in the report: `static A0`, `search sa-only`, `heldout joint`, … */
  label: string;
  /** Steps whose results this one needs (a search's selected harness). */
  deps: string[];
  spec: StepSpec;
}

/** The three harnesses the held-out evaluations and probes compare: the initial one and each search's selection. */
export const COMPARED = ["initial", ...OBJECTIVES] as const;
export type Compared = (typeof COMPARED)[number];

export function benchmarkName(benchmark: StudyBenchmark): string {
  return benchmark.name ?? benchmark.suite.replace(/^.*\//, "").replace(/\.[cm]?[jt]s$/, "");
}

export function searchStepId(benchmark: string, search: StudySearch): string {
  return `${benchmark}/search-${search}`;
}

export function staticStepId(benchmark: string, condition: Condition): string {
  return `${benchmark}/static-${condition}`;
}

export function comparedStepId(
  benchmark: string,
  what: "heldout" | "independent" | "beliefs",
  harness: Compared | typeof CONVOLVE,
): string {
  return `${benchmark}/${what}-${harness}`;
}

export function challengeStepId(benchmark: string): string {
  return `${benchmark}/challenge-joint`;
}

/** Every step of the study, in an order that respects the dependencies (a dependency comes first). */
export function studySteps(study: StudyFile): StudyStep[] {
  const names = new Set<string>();
  const steps: StudyStep[] = [];
  for (const benchmark of study.benchmarks) {
    const name = benchmarkName(benchmark);
    if (names.has(name)) throw new Error(`two benchmarks are named ${name}`);
    names.add(name);
    steps.push(...benchmarkSteps(study, benchmark, name));
  }
  return steps;
}

function benchmarkSteps(study: StudyFile, benchmark: StudyBenchmark, name: string): StudyStep[] {
  const tasksOf = (split: Split, kind?: "blocked"): StepTasks => ({
    suite: benchmark.suite,
    ...(typeof benchmark.tasks === "string" ? { tasks: benchmark.tasks } : {}),
    split,
    ...(kind ? { kind } : {}),
  });
  const steps: StudyStep[] = CONDITIONS.map((condition) => ({
    id: staticStepId(name, condition),
    benchmark: name,
    label: `static ${condition}`,
    deps: [],
    spec: {
      kind: "eval",
      harness: { path: benchmark.conditions[condition] },
      tasks: tasksOf("search", "blocked"),
      repeats: 1,
      seed: study.seed,
    },
  }));
  const searchConfig = (objective: StudyObjective, index: number, search: StudySearch) => ({
    name: `${study.name}-${name}-${search}`,
    suites: [benchmark.suite],
    ...(typeof benchmark.tasks === "string" ? { tasks: benchmark.tasks } : {}),
    objective,
    seed_harness: benchmark.initial,
    rounds: study.search.rounds,
    proposals_per_round: study.search.proposals_per_round,
    repeats: 1,
    task_model: study.models.task,
    meta_model: study.models.meta,
    judge: study.models.judge,
    customer: study.models.customer,
    // The protocol's searches are two independent ones: each its own seed.
    seed: study.seed + index,
    concurrency: study.concurrency,
    // The study evaluates the initial and selected harnesses on held-out tasks itself (its own steps).
    heldout: { final: false },
  });
  OBJECTIVES.forEach((objective, index) => {
    steps.push({
      id: searchStepId(name, objective),
      benchmark: name,
      label: `search ${objective}`,
      deps: [],
      spec: { kind: "search", objective, config: searchConfig(objective, index, objective) },
    });
  });
  if (study.search.convolve) {
    // Beside the joint search, differing only in the proposer: its objective, seed harness, tasks, budget and seed.
    const roles = {
      ...(study.models.reflector ? { reflector: { spec: study.models.reflector } } : {}),
      ...(study.models.curator ? { curator: { spec: study.models.curator } } : {}),
    };
    steps.push({
      id: searchStepId(name, CONVOLVE),
      benchmark: name,
      label: `search ${CONVOLVE}`,
      deps: [],
      spec: {
        kind: "search",
        objective: "joint",
        config: {
          ...searchConfig("joint", OBJECTIVES.indexOf("joint"), CONVOLVE),
          meta_model: CONVOLVE,
          ...(Object.keys(roles).length > 0 ? { models: roles } : {}),
        },
      },
    });
  }
  const harnessOf = (which: Compared): HarnessRef =>
    which === "initial" ? { path: benchmark.initial } : { selected: searchStepId(name, which) };
  const depsOf = (which: Compared) => (which === "initial" ? [] : [searchStepId(name, which)]);
  for (const which of COMPARED) {
    steps.push(
      {
        id: comparedStepId(name, "heldout", which),
        benchmark: name,
        label: `heldout ${which}`,
        deps: depsOf(which),
        spec: {
          kind: "eval",
          harness: harnessOf(which),
          tasks: tasksOf("heldout"),
          repeats: 1,
          seed: study.seed,
        },
      },
      {
        id: comparedStepId(name, "independent", which),
        benchmark: name,
        label: `independent ${which}`,
        deps: depsOf(which),
        spec: {
          kind: "eval",
          harness: harnessOf(which),
          tasks: tasksOf("independent"),
          repeats: study.independent_reruns,
          seed: study.seed,
        },
      },
      {
        id: comparedStepId(name, "beliefs", which),
        benchmark: name,
        label: `beliefs ${which}`,
        deps: depsOf(which),
        spec: {
          kind: "beliefs",
          harness: harnessOf(which),
          tasks: tasksOf("heldout"),
          resamples: study.beliefs.resamples,
          seed: study.seed,
        },
      },
    );
  }
  if (study.search.convolve)
    steps.push({
      id: comparedStepId(name, "heldout", CONVOLVE),
      benchmark: name,
      label: `heldout ${CONVOLVE}`,
      deps: [searchStepId(name, CONVOLVE)],
      spec: {
        kind: "eval",
        harness: { selected: searchStepId(name, CONVOLVE) },
        tasks: tasksOf("heldout"),
        repeats: 1,
        seed: study.seed,
      },
    });
  steps.push({
    id: challengeStepId(name),
    benchmark: name,
    label: "challenge joint",
    deps: depsOf("joint"),
    spec: {
      kind: "challenge",
      harness: harnessOf("joint"),
      tasks: tasksOf("heldout"),
      runs: study.challenge.replicates,
      seed: study.seed,
    },
  });
  return steps;
}

/**
 * The order steps may start in with at most `concurrency` at once: a step is ready once its dependencies are done.
 * Pure, for the plan's reader: the waves of steps that can run together.
 */
export function stepWaves(steps: readonly StudyStep[]): string[][] {
  const done = new Set<string>();
  const left = [...steps];
  const waves: string[][] = [];
  while (left.length > 0) {
    const ready = left.filter((step) => step.deps.every((dep) => done.has(dep)));
    if (ready.length === 0) throw new Error("the study's steps depend on each other in a cycle");
    waves.push(ready.map((step) => step.id));
    for (const step of ready) {
      done.add(step.id);
      left.splice(left.indexOf(step), 1);
    }
  }
  return waves;
}
