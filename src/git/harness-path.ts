/**
 * Which paths a harness may contain (DESIGN §9: proposer edits stay inside the harness directory). Pure: the checks
 * against a commit's tree and the working directory live with the commit code.
 */
import { badInput } from "../core/errors";

/**
 * Throws bad_input naming the path unless it is a plain relative path inside the harness: no absolute or drive
 * paths, no backslashes, no empty, `.` or `..` segments, nothing under `.git`.
 */
export function assertHarnessPath(path: string): void {
  const refuse = (why: string) => badInput(`harness path '${path}' refused: ${why}`, { field: path });
  if (path.length === 0) throw refuse("empty path");
  if (path.includes("\0")) throw refuse("contains a NUL byte");
  if (path.includes("\\")) throw refuse("contains a backslash");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) throw refuse("absolute path");
  for (const segment of path.split("/")) {
    if (segment === "") throw refuse("empty path segment");
    if (segment === "." || segment === "..")
      throw refuse(`'${segment}' segment leaves or aliases the harness`);
    // Case-insensitive: on macOS and Windows `.GIT` is the same directory.
    if (segment.toLowerCase() === ".git") throw refuse("inside .git");
  }
}

/** The proper prefixes of a path: `a/b/c` → `a`, `a/b`. */
export function parentPrefixes(path: string): string[] {
  const segments = path.split("/");
  return segments.slice(1).map((_, index) => segments.slice(0, index + 1).join("/"));
}
