/**
 * The places of a task image's own file system that the effect log watches beside the workspace (a task's
 * `env.watch`): read on the host in the container's merged root after every call that may write, never through
 * a command the episode could change. The kernel's and the sandbox's own places, and what every process leaves
 * (logs, caches, /tmp), are never watched: no agent's work is there, and the noise would drown it.
 */
import { HsearchError } from "../../core";
import { SANDBOX_PATHS } from "./sandbox-types";
import { CONTROL_PATH } from "./session-plan";
import { type EntryFingerprint, snapshotPlaces, type WorkspaceSnapshot } from "./workspace-snapshot";

/** Folders never watched, with all below them. */
export const UNWATCHED_PLACES: readonly string[] = [
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/tmp",
  "/var/tmp",
  "/var/log",
  "/var/cache",
  SANDBOX_PATHS.logs,
  SANDBOX_PATHS.tests,
  CONTROL_PATH,
];

/** Does `path` lie in `place` (the place itself, or below it)? */
export function isInPlace(path: string, place: string): boolean {
  return place === "/" || path === place || path.startsWith(`${place}/`);
}

/**
 * The watched places' entries, keyed by absolute path: `workspaceAt` (where the commands see the workspace, which
 * the workspace's own snapshot covers) and the unwatched places left out.
 */
export async function snapshotWatched(
  hostRoot: string | undefined,
  places: readonly string[],
  workspaceAt: string,
  previous?: WorkspaceSnapshot,
): Promise<Map<string, EntryFingerprint>> {
  if (hostRoot === undefined)
    throw new HsearchError(
      "sandbox",
      `this task watches ${places.join(", ")} in its container, which needs the container's file system on the ` +
        "host: run hsearch as root with an overlay storage driver (docker's default), the daemon in the host's " +
        "own mount namespace",
      { field: "env.watch" },
    );
  const skipped = [...UNWATCHED_PLACES, workspaceAt];
  return snapshotPlaces(
    hostRoot,
    places,
    (path) => skipped.some((place) => isInPlace(path, place)),
    previous,
  );
}
