/** The public entry of src/envs: what other modules of src/ import from it (src/README.md, the import rule). */

export {
  ABSTAIN_TOOL,
  ABSTAINED,
  abstainDeferral,
  abstainTool,
  categoryParameter,
  type DeferralChange,
  type DeferralVia,
  familyOf,
  textOf,
} from "./deferral";
export { EffectLog } from "./effect-log";
export { isForbiddenEffect } from "./forbidden";
export {
  loadRetailData,
  RETAIL_WRITE_TOOLS,
  replayRetailActions,
  retailDataFile,
  TRANSFER_TOOL,
  verifyRetail,
} from "./retail";
export type { Address, Order, OrderItem, PaymentMethod, RetailData, User, Variant } from "./retail/schema";
export { RETAIL_TOOL_BY_NAME } from "./retail/tool-specs";
export {
  createTaskEnvironment,
  registerSuite,
  type SuiteRuntime,
  suiteHasCustomer,
  suitePolicy,
  suiteRuntime,
  unmetInternetNeed,
  type VerifierRun,
  verifyTaskWithReport,
} from "./suite-env";
export type { EnvironmentOptions, EpisodeOutcome, SuiteTools } from "./suite-runtime";
export { environmentChoicesOf } from "./suite-runtime";
export { suiteTools } from "./suite-tools";
export {
  createLocalShellEnv,
  createTerminalEnv,
  cutMiddle,
  DEFERRAL_FILE,
  episodeImageId,
  IMAGE_SOURCE_VARIABLE,
  IMAGE_SOURCES,
  type ImageSource,
  imageSourceChosen,
  runVerifier,
  TerminalEnv,
  terminalEnvOptions,
  verifierTimeoutMs,
} from "./terminal";
export { BUILD_NETWORKS } from "./terminal/image-plan";
export { ALLOW_INTERNET_VARIABLE, internetAllowed } from "./terminal/internet";
export {
  detectSandbox,
  prepareWorkspace,
  runInSandbox,
  SANDBOX_MECHANISMS,
  type SandboxMechanism,
} from "./terminal/sandbox";
export { isDirectory } from "./terminal/sandbox-host";
export { BASE_ENV } from "./terminal/sandbox-plan";
export { DEFAULT_COMMAND_TIMEOUT_MS, type ForbiddenChange } from "./terminal/terminal-env";
export { UNWATCHED_PLACES } from "./terminal/watched-places";
export { HOST_SYSTEM_DIRS, reservedRootOf } from "./terminal/workdir";
export { snapshotWorkspace, type WorkspaceSnapshot } from "./terminal/workspace-snapshot";
export { type Environment, TaskSetupError } from "./types";
