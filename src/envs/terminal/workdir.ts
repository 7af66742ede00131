/**
 * Pure: a task's own work directory (an imported Harbor task's `WORKDIR /home/user`, `/root/project`): the sandbox
 * shows the workspace there as well as at /workspace, and every command starts there. It must be a place the
 * episode's own root can hold: never the host's read-only system directories, nor a path the sandbox mounts itself.
 */
import { badInput } from "../../core";
import { SANDBOX_PATHS } from "./sandbox-types";

/**
 * The host's system directories, which every sandbox shows read-only (its /usr, /etc, libraries and package
 * databases are what a task's commands run): a task can neither place a file there nor work there.
 */
export const HOST_SYSTEM_DIRS = [
  "/usr",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/opt",
  "/boot",
  "/var/lib",
] as const;

/** Paths a work directory may be neither nor lie below: the host's (read-only) and the sandbox's own mounts. */
export const RESERVED_WORKDIR_ROOTS = [
  ...HOST_SYSTEM_DIRS,
  "/var/tmp",
  "/proc",
  "/dev",
  "/sys",
  SANDBOX_PATHS.tmp,
  SANDBOX_PATHS.tests,
  SANDBOX_PATHS.logs,
  SANDBOX_PATHS.shims,
  "/.hsearch",
  SANDBOX_PATHS.workspace,
  SANDBOX_PATHS.app,
];

/** The work directory as given when it is usable, else a `bad_input` error naming `field` and why. */
export function checkWorkdir(path: string, field = "env.workdir"): string {
  if (!path.startsWith("/") || path === "/")
    throw badInput(`the work directory must be an absolute path below /, got '${path}'`, { field });
  const parts = path.slice(1).split("/");
  if (parts.some((part) => part === "" || part === "." || part === ".."))
    throw badInput(
      `the work directory must be a normalised path (no '.', '..', '//' or trailing '/'): '${path}'`,
      {
        field,
      },
    );
  const reserved = reservedRootOf(path);
  if (reserved)
    throw badInput(
      `the work directory ${path} lies in ${reserved}, which the sandbox shows from the host or mounts itself`,
      { field },
    );
  return path;
}

/** The reserved path `path` is or lies below, or null. */
export function reservedRootOf(path: string): string | null {
  return RESERVED_WORKDIR_ROOTS.find((root) => path === root || path.startsWith(`${root}/`)) ?? null;
}

/** The directories from the top down to `path`, relative to / (`/home/user` → `home`, `home/user`). */
export function workdirAncestry(path: string): string[] {
  const parts = path.slice(1).split("/");
  return parts.map((_, index) => parts.slice(0, index + 1).join("/"));
}
