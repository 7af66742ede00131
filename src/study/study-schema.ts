import { z } from "zod";

/**
 * A study file (`hsearch study [STUDY.yaml]`): the self-awareness protocol's benchmarks, conditions, searches and
 * probes. Every field but `benchmarks` has the protocol's value as its default (docs/guide/study.md).
 */
const harnessPath = z.string().min(1);

/** The static conditions, each a harness: A0 bare, A1 abandon, B report, C self-check, D harness-control. */
export const CONDITIONS = ["A0", "A1", "B", "C", "D"] as const;
export type Condition = (typeof CONDITIONS)[number];

const DEFAULT_CONDITIONS: Record<Condition, string> = {
  A0: "harnesses/bare",
  A1: "harnesses/abandon",
  B: "harnesses/report",
  C: "harnesses/self-check",
  D: "harnesses/harness-control",
};

const benchmarkSchema = z
  .object({
    /** The benchmark's name in the report and its directory (default: the suite). */
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, "a benchmark name is lower-case letters, digits and dashes")
      .optional(),
    /** `retail`, `terminal` or a suite module's path. */
    suite: z.string().min(1),
    /**
     * A task directory instead of the shipped suite (a Terminal-Bench 2 paired suite); null: the shipped suite.
     * Without it a terminal benchmark takes `tasks/tb2` when that directory exists where the study runs.
     */
    tasks: z.string().min(1).nullable().optional(),
    /** The initial harness (R0) of both searches and of the held-out, belief comparisons. */
    initial: harnessPath.default("harnesses/abandon"),
    conditions: z
      .object({
        A0: harnessPath.default(DEFAULT_CONDITIONS.A0),
        A1: harnessPath.default(DEFAULT_CONDITIONS.A1),
        B: harnessPath.default(DEFAULT_CONDITIONS.B),
        C: harnessPath.default(DEFAULT_CONDITIONS.C),
        D: harnessPath.default(DEFAULT_CONDITIONS.D),
      })
      .strict()
      .default(DEFAULT_CONDITIONS),
  })
  .strict();

const positive = z.number().int().min(1);

export const studyFileSchema = z
  .object({
    name: z.string().min(1).default("study"),
    /** Every step's seed derives from it: the SA-only search takes `seed`, the joint one `seed + 1`. */
    seed: z.number().int().min(0).default(1),
    /** Rollouts at once within each step (`--steps-at-once` steps that do not depend on each other run together). */
    concurrency: positive.default(8),
    models: z
      .object({
        task: z.string().min(1).default("sim:default"),
        meta: z.string().min(1).default("operators"),
        judge: z.string().min(1).default("rules"),
        customer: z.string().min(1).default("auto"),
        /** The CONVOLVE search's reflector and curator models (`search.convolve`); null: the offline roles. */
        reflector: z.string().min(1).nullable().default(null),
        curator: z.string().min(1).nullable().default(null),
      })
      .strict()
      .default({
        task: "sim:default",
        meta: "operators",
        judge: "rules",
        customer: "auto",
        reflector: null,
        curator: null,
      }),
    benchmarks: z.array(benchmarkSchema).min(1),
    search: z
      .object({
        rounds: positive.default(8),
        proposals_per_round: positive.default(3),
        /**
         * Also a CONVOLVE search (`meta_model: convolve`) beside harness search: the joint search's seed harness,
         * tasks, rounds, proposals and seed; its selection on the held-out tasks, compared in the report.
         */
        convolve: z.boolean().default(false),
      })
      .strict()
      .default({ rounds: 8, proposals_per_round: 3, convolve: false }),
    /** Episodes per independent feasible task (the study reran its terminal independent set three times). */
    independent_reruns: positive.default(3),
    beliefs: z
      .object({ resamples: positive.default(10_000) })
      .strict()
      .default({ resamples: 10_000 }),
    challenge: z
      .object({ replicates: positive.default(6) })
      .strict()
      .default({ replicates: 6 }),
    /** A JSON of published values to print beside each table (docs/guide/study.md); none is shipped. */
    reference: z.string().min(1).nullable().default(null),
  })
  .strict();

export type StudyFile = z.output<typeof studyFileSchema>;
export type StudyBenchmark = StudyFile["benchmarks"][number];
