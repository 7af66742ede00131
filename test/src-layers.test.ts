/**
 * The layers `src/README.md` draws hold in the code: a module imports only from modules on lower lines (or its own),
 * and no file reaches itself through runtime imports. The layers are read from the README, so the map and the code
 * cannot drift apart unnoticed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../src/core/paths";

const SRC = join(PACKAGE_ROOT, "src");

/** Module → its line in the README's diagram, counted from the bottom (core is 0). */
function layersFromReadme(): Map<string, number> {
  const readme = readFileSync(join(SRC, "README.md"), "utf8");
  const diagram = /```\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const lines = diagram.split("\n").filter((line) => line.trim().length > 0);
  const rank = new Map<string, number>();
  lines.reverse().forEach((line, index) => {
    const names = line.split(/\s{2,}/)[0] ?? "";
    for (const name of names.split("·")) rank.set(name.trim(), index);
  });
  return rank;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(dir, file));
}

interface Import {
  target: string;
  /** `import type` (erased at run time). */
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(import|export)(\s+type)?\s[^'"]*?from\s+["'](\.[^"']+)["']/g;

function importsOf(file: string, known: ReadonlySet<string>): Import[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((match) => {
    const path = resolve(dirname(file), match[3] as string);
    const target = [`${path}.ts`, join(path, "index.ts")].find((candidate) => known.has(candidate)) ?? path;
    return { target, typeOnly: match[2] !== undefined };
  });
}

const moduleOf = (file: string) => relative(SRC, file).split("/")[0] as string;

describe("the source's layers", () => {
  const rank = layersFromReadme();
  const files = sourceFiles(SRC);
  const known = new Set(files);

  it("names every module of src/ in src/README.md", () => {
    const modules = new Set(files.map(moduleOf).filter((name) => !name.endsWith(".ts")));
    expect([...modules].filter((name) => !rank.has(name))).toEqual([]);
  });

  it("has no import from a module on the same or a higher line", () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = moduleOf(file);
      for (const { target } of importsOf(file, known)) {
        const to = moduleOf(target);
        if (to === from) continue;
        if ((rank.get(to) ?? Number.POSITIVE_INFINITY) >= (rank.get(from) ?? -1))
          upward.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("has no circle of runtime imports between files", () => {
    const graph = new Map(
      files.map((file) => [
        file,
        importsOf(file, known)
          .filter((i) => !i.typeOnly)
          .map((i) => i.target),
      ]),
    );
    const state = new Map<string, "open" | "done">();
    const circles: string[] = [];
    const visit = (file: string, path: string[]) => {
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === "open")
          circles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(" → "));
        else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);
    expect(circles).toEqual([]);
  });
});
