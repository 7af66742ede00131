/** The public entry of src/eval: what other modules of src/ import from it (src/README.md, the import rule). */

export type { BeliefsConfig, ChallengeConfig, EvalConfig, HarnessTaskConfig } from "./eval-config";
export { storedEvaluationConfig } from "./eval-config";
export type { EvaluationDir, NewEvaluationDir } from "./eval-dir";
export { createEvaluationDir, openEvaluationDir } from "./eval-dir";
export type { RolloutExecutor, RolloutJob, RolloutRequest } from "./evaluate";
export { evaluateJobs, isRetriedInfraError, planRollouts, rolloutSeed } from "./evaluate";
export { evaluationKey, runStoredEvaluation } from "./stored-evaluation";
