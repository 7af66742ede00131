import type { BudgetLimit, BudgetUsage } from "../plan/budget";

/**
 * What a search tells its caller: events as it goes, its outcome at the end. Apart from SearchDeps (which holds the
 * run's store) because the library's public types are built from these: their declarations must reach no internal
 * store or database type (test/api/package.e2e.test.ts type-checks a consumer without skipLibCheck).
 */
export interface SearchEvents {
  phase?(message: string): void;
  rollouts?(done: number, total: number, label: string): void;
  candidate?(info: {
    round: number;
    proposal: number;
    commit: string;
    score: number | null;
    state: string;
    reason?: string;
  }): void;
  round?(info: { round: number; incumbent: string; score: number; accepted: string | null }): void;
}

export interface SearchOutcome {
  /** The selected harness; when a budget stopped the run, the incumbent so far. */
  selected: string;
  /** Null when a budget stopped the run before the seed was scored. */
  score: number | null;
  stoppedBy: "rounds" | "early_stop" | "budget" | "exhausted";
  /** Which limit stopped the run, and the usage then. */
  budget?: { limit: BudgetLimit; usage: BudgetUsage; message: string };
}
