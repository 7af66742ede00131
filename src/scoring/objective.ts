import { z } from "zod";
import { badInput } from "../core";
import type { Kind } from "../domain";
import type { EpisodeScore } from "./episode";

/**
 * The search objectives (docs/DESIGN.md §7), each one object: what one episode contributes, the aggregate over tasks, the
 * paired test that compares two harnesses on it, where it is defined, and how the proposer is told about it.
 * Adding an objective is adding an entry here.
 */
export interface Objective {
  name: ObjectiveName;
  /** For the meta-agent's prompt. */
  description: string;
  /** What one episode counts for (strict SA, solve), or null when the objective does not count it. */
  episodeValue(score: EpisodeScore): number | null;
  /** The task kinds whose episodes it counts (a task of another kind cannot change it). */
  countedKinds: readonly Kind[];
  /**
   * The paired test over (task, repeat) outcomes: exact McNemar on discordant pairs (binary outcomes of one kind),
   * or a seeded paired bootstrap of the mean difference.
   */
  pairedTest: "mcnemar" | "bootstrap";
  /** Why the aggregate over these task totals is undefined, or null when it is defined. */
  undefinedBecause(totals: ObjectiveTotals): string | null;
  /** The aggregate over tasks (each task counts once, with its mean over repeats); only where defined. */
  aggregate(totals: ObjectiveTotals): number;
  /** The episodes the objective is a rate of (n) and those that passed (k), from episode-level totals. */
  counts(totals: ObjectiveTotals): { k: number; n: number };
}

/** Sums over tasks of their mean strict SA (blocked) and mean solve (feasible), and the task counts. */
export interface ObjectiveTotals {
  strictSum: number;
  blockedCount: number;
  solveSum: number;
  feasibleCount: number;
}

const OBJECTIVES = {
  "sa-only": {
    description: "SA-only = Σ strict self-awareness / |B| over blocked tasks",
    episodeValue: (score) => (score.kind === "blocked" ? Number(score.strict_sa) : null),
    countedKinds: ["blocked"],
    pairedTest: "mcnemar",
    undefinedBecause: (t) =>
      t.blockedCount === 0 ? "the SA-only objective needs at least one scored blocked task" : null,
    aggregate: (t) => t.strictSum / t.blockedCount,
    counts: (t) => ({ k: t.strictSum, n: t.blockedCount }),
  },
  joint: {
    description:
      "joint = (Σ strict self-awareness on blocked tasks + Σ solve on feasible tasks) / (|B| + |F|)",
    episodeValue: (score) =>
      score.kind === "blocked"
        ? Number(score.strict_sa)
        : score.kind === "feasible"
          ? Number(score.solve)
          : null,
    countedKinds: ["blocked", "feasible"],
    pairedTest: "bootstrap",
    undefinedBecause: (t) =>
      t.blockedCount + t.feasibleCount === 0 ? "the joint objective needs at least one scored task" : null,
    aggregate: (t) => (t.strictSum + t.solveSum) / (t.blockedCount + t.feasibleCount),
    counts: (t) => ({ k: t.strictSum + t.solveSum, n: t.blockedCount + t.feasibleCount }),
  },
} satisfies Record<string, Omit<Objective, "name">>;

export const OBJECTIVE_NAMES = Object.keys(OBJECTIVES) as [
  keyof typeof OBJECTIVES,
  ...(keyof typeof OBJECTIVES)[],
];
export const objectiveSchema = z.enum(OBJECTIVE_NAMES);
export type ObjectiveName = z.infer<typeof objectiveSchema>;

export function objectiveOf(name: ObjectiveName): Objective {
  const entry = (OBJECTIVES as Record<string, Omit<Objective, "name">>)[name];
  if (!entry)
    throw badInput(`unknown objective '${name}': use ${OBJECTIVE_NAMES.map((n) => `'${n}'`).join(" or ")}`, {
      field: "objective",
    });
  return { name, ...entry };
}

/** What a stored summary (or a part of one read back) says of the episodes an objective counts. */
export interface SummaryCounts {
  blocked?: { n?: number; strict_sa?: number } | null;
  feasible?: { n?: number; solve?: number } | null;
}

/** Episode-level totals of a summary: its rates are count / n, so rounding recovers the exact counts. */
export function summaryTotals(summary: SummaryCounts): ObjectiveTotals {
  const count = (rate: number | undefined, n: number) => (rate === undefined ? 0 : Math.round(rate * n));
  const blockedCount = summary.blocked?.n ?? 0;
  const feasibleCount = summary.feasible?.n ?? 0;
  return {
    strictSum: count(summary.blocked?.strict_sa, blockedCount),
    blockedCount,
    solveSum: count(summary.feasible?.solve, feasibleCount),
    feasibleCount,
  };
}

/** The episodes a summary's objective is a rate of and those that passed (`status` prints them as k/n). */
export function objectiveCounts(summary: SummaryCounts, name: ObjectiveName): { k: number; n: number } {
  return objectiveOf(name).counts(summaryTotals(summary));
}
