/**
 * Which paths a harness may contain (docs/DESIGN.md §9: proposer edits stay inside the harness directory). Pure: the checks
 * against a commit's tree and the working directory live with the commit code.
 */
import { badInput, relativePathProblem } from "../core";

/**
 * Throws bad_input naming the path unless it is a plain relative path inside the harness: no absolute or drive
 * paths, no backslashes, no empty, `.` or `..` segments, nothing under `.git`.
 */
export function assertHarnessPath(path: string): void {
  const problem = relativePathProblem(path);
  if (problem)
    throw badInput(`harness path '${path}' refused: ${problem.replace("the directory", "the harness")}`, {
      field: path,
    });
}

/** The proper prefixes of a path: `a/b/c` → `a`, `a/b`. */
export function parentPrefixes(path: string): string[] {
  const segments = path.split("/");
  return segments.slice(1).map((_, index) => segments.slice(0, index + 1).join("/"));
}
