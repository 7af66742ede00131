/**
 * The terminal sandbox (docs/DESIGN.md §9): one command, no network, an unprivileged user, a private /tmp, the workspace as
 * the only writable place, limits on wall time, CPU, memory, processes and output, and a clean environment.
 * See sandbox-plan.ts for the exact view and sandbox-host.ts for the identity a workspace runs as.
 */
import { realpath } from "node:fs/promises";
import { detectSandbox } from "./sandbox-detect";
import { handWorkspaceTo, sandboxUserFor } from "./sandbox-host";
import { runWithMechanism } from "./sandbox-run";
import type { SandboxInfo, SandboxRequest, SandboxResult, SandboxUser } from "./sandbox-types";

export { cutMiddle, DISPLAY_LIMIT_BYTES } from "./output-cut";
export { availableMechanisms, detectSandbox } from "./sandbox-detect";
export { sandboxUserFor } from "./sandbox-host";
export * from "./sandbox-types";

/** Run one command in the sandbox (the detected mechanism, or `request.mechanism`). */
export async function runInSandbox(request: SandboxRequest): Promise<SandboxResult> {
  const info = await detectSandbox(request.mechanism ? { mechanism: request.mechanism } : {});
  return runWithMechanism(info, request);
}

/**
 * Make a workspace writable by the identity its commands will run as: when privileged, chown it (recursively) to
 * `sandboxUserFor(workspace)`, which `runInSandbox` then uses by default. Without root there is nothing to do.
 * Returns the identity, or undefined when unprivileged.
 */
export async function prepareWorkspace(
  workspace: string,
  info: SandboxInfo,
): Promise<SandboxUser | undefined> {
  if (!info.privileged) return undefined;
  const user = sandboxUserFor(await realpath(workspace));
  await handWorkspaceTo(workspace, user);
  return user;
}
