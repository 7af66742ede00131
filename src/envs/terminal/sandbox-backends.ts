/**
 * The sandbox backends, one list: the first that accepts a session's options starts it. A new path is one module
 * implementing `SandboxBackend` (sandbox-backend.ts) and one entry here.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { HsearchError } from "../../core";
import { containerBackend } from "./backend-container";
import { imageBackend } from "./backend-image";
import { namespacesBackend } from "./backend-namespaces";
import type { SandboxBackend } from "./sandbox-backend";
import { hostEntries, isDirectory } from "./sandbox-host";
import { checkLimits } from "./sandbox-run";
import type { SandboxSession, SessionOptions } from "./sandbox-session";
import { HOST_VAR_LIB, type SessionPaths } from "./session-plan";

/** Most specific first: a task's own image, then a container, then the namespaces of the detected mechanism. */
export const SANDBOX_BACKENDS: readonly SandboxBackend[] = [
  imageBackend,
  containerBackend,
  namespacesBackend,
];

/** Lay out the episode's host directories and start its sandbox with the backend its options ask for. */
export async function startSandboxSession(options: SessionOptions): Promise<SandboxSession> {
  const { info, dir } = options;
  checkLimits(options.limits ?? {});
  const backend = SANDBOX_BACKENDS.find((candidate) => candidate.accepts(options));
  if (!backend) throw new HsearchError("sandbox", "no sandbox backend runs these session options");
  const paths: SessionPaths = {
    root: join(dir, "root"),
    workspace: options.workspace,
    tmp: options.tmp,
    tests: join(dir, "verifier", "tests"),
    logs: join(dir, "verifier", "logs"),
    control: join(dir, "control"),
  };
  const entries = hostEntries();
  // In a user namespace, mount(8) cannot bind /var/lib alone when mounts lie below it (a docker daemon's): the
  // kernel refuses to uncover what they hide. That sandbox goes without it rather than show those mounts.
  const hasVarLib = isDirectory(HOST_VAR_LIB) && (info.privileged || info.mechanism !== "unshare");
  await mkdir(paths.tests, { recursive: true, mode: 0o755 });
  await mkdir(paths.logs, { recursive: true, mode: 0o755 });
  await mkdir(paths.control, { mode: 0o700 });
  return backend.start({ options, paths, entries, hasVarLib });
}
