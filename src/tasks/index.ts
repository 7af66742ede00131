/** The public entry of src/tasks: what other modules of src/ import from it (src/README.md, the import rule). */

export type { PairEvent, PairResult } from "./generators/pair/pair-suite";
export { PAIRED_SUITE_DIR, pairSuite, readPairSources, sourceImageId } from "./generators/pair/pair-suite";
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
export type { AptRunner, DebianHost } from "./importers/harbor/host-packages";
export { aptInstallCommand, debianApt, debianHost, installPackages } from "./importers/harbor/host-packages";
export type { HarborImport } from "./importers/harbor/import-harbor";
export {
  convertTaskDir,
  harborTaskDirs,
  importHarbor,
  unrunnableReason,
} from "./importers/harbor/import-harbor";
export type { InstallPlan } from "./importers/harbor/install-plan";
export { planInstall, tasksLeftUnrunnable } from "./importers/harbor/install-plan";
export type { TaskRequirements } from "./importers/harbor/requirements";
export { importTau2File } from "./importers/tau2/import-tau2";
export type { LoadedTask, TaskFilter } from "./loading/load";
export { filterTasks, loadSuites, loadTaskDir, suiteDir } from "./loading/load";
export { checkTaskSet } from "./loading/validate";
export { writeTaskFiles } from "./loading/write";
