/** The terminal suite's environment (docs/DESIGN.md §9): the sandbox, the shell environment and the Harbor-style verifier. */

export { episodeImageId } from "./backend-image";
export { IMAGE_SOURCES, type ImageSource } from "./image-plan";
export { IMAGE_SOURCE_VARIABLE, imageSourceChosen } from "./image-source";
export {
  ALLOW_INTERNET_VARIABLE,
  internetAllowed,
  networkFailureIn,
  noNetworkMessage,
} from "./internet";
export { createLocalShellEnv, LocalShellSession } from "./local-shell";
export {
  availableMechanisms,
  cutMiddle,
  DISPLAY_LIMIT_BYTES,
  detectSandbox,
  prepareWorkspace,
  runInSandbox,
  sandboxUserFor,
} from "./sandbox";
export type { SandboxInfo, SandboxRequest, SandboxResult } from "./sandbox-types";
export { terminalEnvOptions, verifierTimeoutMs } from "./task-options";
export {
  createTerminalEnv,
  DEFERRAL_FILE,
  isDeferralCall,
  TERMINAL_TOOLS,
  TerminalEnv,
  type TerminalEnvOptions,
} from "./terminal-env";
export { REWARD_PATH, runVerifier, type VerifierResult } from "./verifier";
