/**
 * Pure: the file tools' path rule. Paths are relative to the workspace; `/workspace/…` and `/app/…` (how the agent
 * sees the workspace inside the sandbox) are accepted too. Anything that leaves the workspace is refused. Symlinks
 * inside the workspace cannot lead a file tool out either: the tools run inside the sandbox, which sees nothing
 * writable but the workspace.
 */
import { posix } from "node:path";
import { badInput } from "../../core";
import { SANDBOX_PATHS } from "./sandbox-types";

/**
 * The normalised workspace-relative path, or a `bad_input` error saying why the path is refused. `workdir`: the
 * task's own work directory, where the workspace is shown instead of /app.
 */
export function workspaceRelativePath(path: unknown, field = "path", workdir?: string): string {
  if (typeof path !== "string" || path.trim() === "")
    throw badInput("path must be a non-empty string", { field });
  if (path.includes("\0")) throw badInput("path must not contain NUL", { field });
  let relative = path;
  for (const mount of [SANDBOX_PATHS.workspace, workdir ?? SANDBOX_PATHS.app]) {
    if (relative === mount || relative.startsWith(`${mount}/`)) relative = relative.slice(mount.length + 1);
  }
  if (posix.isAbsolute(relative))
    throw badInput(`'${path}' is outside the workspace; use a path relative to ${SANDBOX_PATHS.workspace}`, {
      field,
    });
  const normalised = posix.normalize(relative === "" ? "." : relative).replace(/\/+$/, "");
  if (normalised === "." || normalised === "")
    throw badInput(`'${path}' names the workspace itself, not a file`, { field });
  if (normalised === ".." || normalised.startsWith("../"))
    throw badInput(`'${path}' leaves the workspace`, { field });
  return normalised;
}
