/**
 * The one check every writing command makes before it writes: its output must not be, contain or lie inside any of
 * its inputs once symlinks are followed, or the command would rewrite what it reads (a researcher's imported tasks,
 * a run directory, a harness). Paths that do not exist yet are judged by their nearest existing ancestor, so an
 * output whose parent is a link to the input is caught too.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { HsearchError } from "./errors";

/** A path given to a command, with how the user gave it (for the message). */
export interface NamedPath {
  path: string;
  /** "--out", "the harness", "DIR" … */
  name: string;
}

/** `path` with every symlink on the way followed: the real path of its nearest existing ancestor, then the rest. */
export function realTarget(path: string): string {
  let at = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return join(at, ...rest.reverse());
      rest.push(basename(at));
      at = parent;
    }
  }
}

function within(child: string, parent: string): boolean {
  const path = relative(parent, child);
  return path !== "" && path.split(sep)[0] !== ".." && !isAbsolute(path);
}

/** How `output` overlaps `input` ("is", "lies inside", "contains"), both followed through links; none when apart. */
export function overlapOf(output: string, input: string): "is" | "lies inside" | "contains" | undefined {
  const out = realTarget(output);
  const source = realTarget(input);
  if (out === source) return "is";
  if (within(out, source)) return "lies inside";
  if (within(source, out)) return "contains";
  return undefined;
}

/** Refuse (bad_input naming both paths) an output that overlaps any input. */
export function assertOutputApart(output: NamedPath, inputs: readonly NamedPath[]): void {
  for (const input of inputs) {
    const how = overlapOf(output.path, input.path);
    if (how === undefined) continue;
    const real = (path: string) => (realTarget(path) === resolve(path) ? "" : ` (${realTarget(path)})`);
    throw new HsearchError(
      "bad_input",
      `${output.name} ${output.path}${real(output.path)} ${how} ${input.name} ${input.path}${real(input.path)} once links are followed: writing there would rewrite the input; choose an output apart from it`,
      { field: output.name },
    );
  }
}
