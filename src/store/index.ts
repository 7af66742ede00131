/** The run store: the run directory, its SQLite database and trajectory logs (docs/DESIGN.md §3, §7). */

export { candidateName, type ResolveOptions, resolveCandidate, validCandidateNames } from "./candidate-names";
export { MIGRATIONS } from "./migrations";
export * from "./records";
export {
  createRunDir,
  probeTrajectoryFile,
  type RunPaths,
  runDirState,
  runPaths,
  trajectoryFile,
} from "./run-dir";
export * from "./run-events";
export { acquireRunLock } from "./run-lock";
export type { RunReader } from "./run-reader";
export type { RunStatus } from "./run-status";
export { describeStoppedEarly, runStatus, usageOf, verdictReason } from "./run-status";
export { type OpenOptions, openRunStore, RunStore } from "./run-store";
export { type RejectedProposal, type SearchRunInfo, SearchView } from "./search-view";
export { type LinePointer, readTrajectoryLog, type TrajectoryEntry } from "./trajectory-log";
