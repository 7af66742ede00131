/**
 * What an imported Harbor task needs from the host, gathered from its Dockerfile and test script (pure), and
 * whether a task with those needs can run offline at all.
 */
import type { HostRequirements } from "../../../domain";
import { debianPackageFor, HARBOR_ONLY } from "./python-debian";

/** What a task needs from the host (see HostRequirements in the task format). */
export type TaskRequirements = HostRequirements;

export function emptyRequirements(): TaskRequirements {
  return { debian: [], python: [], network: [], services: [], root: [] };
}

/** Add Python distributions and their Debian packages. */
export function addPython(into: TaskRequirements, distributions: readonly string[]): void {
  for (const name of distributions) {
    if (HARBOR_ONLY.has(name)) continue;
    into.python.push(name);
    into.debian.push(debianPackageFor(name));
  }
}

export function mergeRequirements(...parts: TaskRequirements[]): TaskRequirements {
  const unique = (values: string[]) => [...new Set(values)].sort();
  return {
    debian: unique(parts.flatMap((part) => part.debian)),
    python: unique(parts.flatMap((part) => part.python)),
    network: [...new Set(parts.flatMap((part) => part.network))],
    services: unique(parts.flatMap((part) => part.services)),
    root: [...new Set(parts.flatMap((part) => part.root))],
  };
}
