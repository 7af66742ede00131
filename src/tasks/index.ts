/** The public entry of src/tasks: what other modules of src/ import from it (src/README.md, the import rule). */

export {
  PAIRED_SUITE_DIR,
  type PairEvent,
  type PairResult,
  pairSuite,
  readPairSources,
  sourceImageId,
} from "./generators/pair/pair-suite";
export {
  defaultPairCacheDir,
  diskPairCache,
  noPairCache,
  type PairCache,
} from "./generators/pair/proof-cache";
export { STUDY_SOURCES } from "./generators/pair/splits";
export { buildRetailSuite, DEFAULT_RETAIL_SEED } from "./generators/retail/suite";
export { checkTerminalTasks } from "./generators/terminal/check";
export { buildTerminalSuite, DEFAULT_TERMINAL_SEED } from "./generators/terminal/suite";
export { readImageMap } from "./importers/harbor/base-images";
export { dockerPathNote, HARBOR_SANDBOXES, harborPathOptions } from "./importers/harbor/docker-path";
// This machine's Debian packages and apt, as the importer, `tasks requirements` and its install use them.
export * from "./importers/harbor/host-packages";
export {
  convertTaskDir,
  type HarborImport,
  harborTaskDirs,
  importHarbor,
  unrunnableReason,
} from "./importers/harbor/import-harbor";
export { type InstallPlan, planInstall, tasksLeftUnrunnable } from "./importers/harbor/install-plan";
export type { TaskRequirements } from "./importers/harbor/requirements";
export { importTau2File } from "./importers/tau2/import-tau2";
export {
  filterTasks,
  type LoadedTask,
  loadSuites,
  loadTaskDir,
  suiteDir,
  type TaskFilter,
} from "./loading/load";
export { checkTaskSet } from "./loading/validate";
export { writeTaskFiles } from "./loading/write";
