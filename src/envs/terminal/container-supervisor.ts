/** Shared by the container backends: start a container's `run` and open the session of its supervisor. */
import { spawn } from "node:child_process";
import { engineCommand } from "./image-build";
import type { Invocation } from "./sandbox-plan";
import { killGroup, SandboxSession, type SessionOptions, type Supervisor } from "./sandbox-session";
import type { SessionPaths } from "./session-plan";

/** `beforeRemove` runs when the episode ends, before the container is removed by name. */
export function openContainer(
  options: SessionOptions,
  paths: SessionPaths,
  invocation: Invocation,
  container: Pick<Supervisor, "ownLimitsOnly" | "image" | "hostPaths" | "workspaceAt"> & {
    name: string;
    binary: string;
    beforeRemove?: () => Promise<void>;
  },
): Promise<SandboxSession> {
  const child = spawn(invocation.file, invocation.args, {
    env: { ...process.env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const supervisor: Supervisor = {
    child,
    repliesOnStdout: true,
    containerName: container.name,
    ownLimitsOnly: container.ownLimitsOnly ?? false,
    ...(container.image ? { image: container.image } : {}),
    ...(container.hostPaths ? { hostPaths: container.hostPaths } : {}),
    ...(container.workspaceAt ? { workspaceAt: container.workspaceAt } : {}),
    stop: async () => {
      await container.beforeRemove?.();
      await engineCommand(container.binary, ["rm", "--force", container.name]).catch(() => {});
      killGroup(child.pid);
    },
  };
  return SandboxSession.open(options, paths, supervisor);
}
