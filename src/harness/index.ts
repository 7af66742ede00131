/** The public entry of src/harness: what other modules of src/ import from it (src/README.md, the import rule). */
export { agentTools } from "./agent-tools";
export type { Customer } from "./customer";
export { STOP_TOKEN } from "./customer";
export type { Decision, EpisodeResult, ExtraTool } from "./episode";
export { Episode, REPORT_STEPS } from "./episode";
export type { Harness, HarnessLimits } from "./load";
export { HARNESS_LIMITS, harnessLimitsOf, loadHarness, parseHarness } from "./load";
export { compilePattern, matchingRules } from "./playbook-match";
export { renderSystemPrompt } from "./render";
export type { OpenRollout, RolloutInput } from "./rollout";
export {
  runAgentEpisode,
  runRollout,
  setupFailureTrajectory,
  TASK_SETUP_FAILED,
  withOpenRollout,
} from "./rollout";
export type { SimContext } from "./sim-context";
export { simContextOf } from "./sim-context";
export type { DeferralVia, EndReason, Trajectory, TrajectoryEvent } from "./trajectory";
export { firstIssue, trajectorySchema } from "./trajectory-schema";
