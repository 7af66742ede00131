/**
 * Paths that come from stored data (a git tree, run.db) and are then used on the filesystem: a harness file being
 * exported, a trajectory file the viewer reads. They are checked component by component before use, and resolved
 * only when nothing on the way is a symlink, so a crafted entry cannot reach outside its destination.
 */
import { lstatSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { HsearchError } from "./errors";

/** Why a relative path is unsafe to join under a directory, or undefined when it is a plain path inside it. */
export function relativePathProblem(path: string): string | undefined {
  if (path.length === 0) return "empty path";
  if (path.includes("\0")) return "contains a NUL byte";
  if (path.includes("\\")) return "contains a backslash";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path) || isAbsolute(path)) return "absolute path";
  for (const segment of path.split("/")) {
    if (segment === "") return "empty path segment";
    if (segment === "." || segment === "..") return `'${segment}' segment leaves or aliases the directory`;
    // Case-insensitive: on macOS and Windows `.GIT` is the same directory.
    if (segment.toLowerCase() === ".git") return "inside .git";
  }
  return undefined;
}

/** Why a path cannot name a file of a Docker build context (relative, plain segments; `.git` is allowed there). */
export function contextPathProblem(path: string): string | undefined {
  if (path.length === 0) return "empty path";
  if (path.includes("\0")) return "contains a NUL byte";
  if (path.startsWith("/")) return "absolute path";
  for (const segment of path.split("/")) {
    if (segment === "") return "empty path segment";
    if (segment === "." || segment === "..") return `'${segment}' segment leaves or aliases the directory`;
  }
  return undefined;
}

/**
 * `root/path` after the component checks, with no symlink on the way from `root` down to it (components that do
 * not exist yet are fine: the caller is about to create them), and still inside `root` once resolved. bad_input
 * naming the path otherwise.
 */
export function resolveInside(root: string, path: string, what = "path"): string {
  const refuse = (why: string) =>
    new HsearchError("bad_input", `${what} '${path}' refused: ${why}`, { file: root, field: path });
  const problem = relativePathProblem(path);
  if (problem) throw refuse(problem);
  const base = resolve(root);
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel))
    throw refuse("outside the destination");
  let at = base;
  for (const segment of rel.split(sep)) {
    at = join(at, segment);
    let stat: ReturnType<typeof lstatSync> | undefined;
    try {
      stat = lstatSync(at);
    } catch {
      break; // not there yet: nothing below it exists either
    }
    if (stat.isSymbolicLink()) throw refuse(`'${relative(base, at)}' is a symlink`);
  }
  return target;
}
