import type { EvalReport } from "../report";
import type { EpisodeScore } from "../scoring";

/**
 * What an evaluation returns (the library's evaluate, `hsearch eval`). In a file of its own, apart from
 * evaluateInDir and its EvaluationDir (which holds the run's store): the public declarations reach no internal store
 * or database type (test/api/package.e2e.test.ts type-checks a consumer without skipLibCheck).
 */
export interface EvalOutcome {
  report: EvalReport;
  /** The episode scores behind the report (for the infrastructure-error gate). */
  scores: EpisodeScore[];
  maxInfraErrorRate: number;
  /** The evaluation directory. */
  dir: string;
}
