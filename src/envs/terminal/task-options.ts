/**
 * A terminal task's environment spec (the task format) → the options of its environment and verifier: files,
 * setup, variables, and the task's own time limits where it has them: the agent's budget for the episode, one
 * command's limit, the setup's and the verifier's.
 */
import type { TerminalEnvSpec } from "../../domain/task";
import type { TerminalEnvOptions } from "./terminal-env";

export function terminalEnvOptions(spec: TerminalEnvSpec): TerminalEnvOptions {
  const timeouts = spec.timeouts ?? {};
  return {
    ...(spec.files ? { files: spec.files } : {}),
    ...(spec.binary_files ? { binaryFiles: spec.binary_files } : {}),
    ...(spec.setup !== undefined ? { setup: spec.setup } : {}),
    ...(spec.env_vars ? { env: spec.env_vars } : {}),
    ...(timeouts.agent_sec !== undefined ? { agentBudgetMs: timeouts.agent_sec * 1000 } : {}),
    ...(timeouts.command_sec !== undefined ? { commandTimeoutMs: timeouts.command_sec * 1000 } : {}),
    ...(timeouts.setup_sec !== undefined ? { setupTimeoutMs: timeouts.setup_sec * 1000 } : {}),
    ...(spec.sandbox === "docker" || spec.sandbox === "podman" ? { container: spec.sandbox } : {}),
    ...(spec.limits ? { limits: sandboxLimits(spec.limits) } : {}),
  };
}

/** The verifier's wall time: the task's own, else the verifier's default. */
export function verifierTimeoutMs(spec: TerminalEnvSpec): number | undefined {
  const seconds = spec.timeouts?.verifier_sec;
  return seconds === undefined ? undefined : seconds * 1000;
}

function sandboxLimits(
  limits: NonNullable<TerminalEnvSpec["limits"]>,
): NonNullable<TerminalEnvOptions["limits"]> {
  return {
    ...(limits.memory_mb !== undefined ? { memoryMb: limits.memory_mb } : {}),
    ...(limits.address_space_mb !== undefined ? { addressSpaceMb: limits.address_space_mb } : {}),
    ...(limits.max_procs !== undefined ? { maxProcs: limits.max_procs } : {}),
    ...(limits.max_file_mb !== undefined ? { maxFileMb: limits.max_file_mb } : {}),
    ...(limits.cpu_seconds !== undefined ? { cpuSeconds: limits.cpu_seconds } : {}),
  };
}
