/**
 * A terminal task's environment spec (the task format) → the options of its environment and verifier: files,
 * setup, variables, the task's own time limits where it has them (the agent's budget for the episode, one
 * command's limit, the setup's or image build's, the verifier's), its sandbox and its own image.
 */
import type { TerminalEnvSpec } from "../../domain";
import type { DockerfileImage, ImageSource } from "./image-plan";
import type { TerminalEnvOptions } from "./terminal-env";

/**
 * `allowInternet`: the user's explicit grant (internet.ts); a task's allow_internet alone gives no network.
 * `imageSource`: the user's choice between a task's prebuilt image and its Dockerfile (image-source.ts).
 */
export function terminalEnvOptions(
  spec: TerminalEnvSpec,
  allowInternet = false,
  imageSource?: ImageSource,
): TerminalEnvOptions {
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
    ...(spec.image ? { image: dockerfileImage(spec.image) } : {}),
    ...(spec.image && imageSource ? { imageSource } : {}),
    ...(spec.watch?.length ? { watch: spec.watch } : {}),
    ...(spec.workdir !== undefined ? { workdir: spec.workdir } : {}),
    ...(spec.allow_internet === true && allowInternet ? { network: true } : {}),
  };
}

/** The task format's `image` as the environment takes it: context files as bytes, defaults filled in. */
export function dockerfileImage(image: NonNullable<TerminalEnvSpec["image"]>): DockerfileImage {
  const context = new Map<string, Buffer>();
  for (const [path, text] of Object.entries(image.context ?? {}))
    context.set(path, Buffer.from(text, "utf8"));
  for (const [path, base64] of Object.entries(image.context_binary ?? {}))
    context.set(path, Buffer.from(base64, "base64"));
  const resources = image.resources ?? {};
  return {
    dockerfile: image.dockerfile,
    ...(image.prebuilt !== undefined ? { prebuilt: image.prebuilt } : {}),
    context,
    executable: image.executable ?? [],
    buildNetwork: image.build_network ?? "default",
    runPackages: { debian: image.run_packages?.debian ?? [], python: image.run_packages?.python ?? [] },
    resources: {
      ...(resources.cpus !== undefined ? { cpus: resources.cpus } : {}),
      ...(resources.memory_mb !== undefined ? { memoryMb: resources.memory_mb } : {}),
      ...(resources.storage_mb !== undefined ? { storageMb: resources.storage_mb } : {}),
    },
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
