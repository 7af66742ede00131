/**
 * The layers `src/README.md` draws hold in the code, under the import rule stated there (its one statement). The
 * layers are read from the README, so the map and the code cannot drift apart unnoticed. Every form that loads
 * another file counts — `import … from`, `export … from`, a bare `import "./x"`, a dynamic `import("./x")` — so no
 * form of import slips past the rule; and no file reaches itself through the static runtime imports.
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
  /** `import type` / `export type` (erased at run time). */
  typeOnly: boolean;
  /** `import("./x")`: loaded when the call runs, after every module is evaluated, so it closes no load-time circle. */
  dynamic: boolean;
}

/** `import … from "./x"` and `export … from "./x"` (the clause may span lines), with `type` noted. */
const FROM = /(?:^|\n)\s*(?:import|export)(\s+type)?\s[^'"]*?from\s+["'](\.[^"']+)["']/g;
/** `import "./x"`: a module loaded for its side effects. */
const BARE = /(?:^|\n)\s*import\s*["'](\.[^"']+)["']/g;
/** `import("./x")`, in code or in a type (`import("./x").T`). */
const DYNAMIC = /\bimport\s*\(\s*["'](\.[^"']+)["']\s*\)/g;

/** The relative imports of a file, every form; `known` resolves `./x` to `x.ts` or `x/index.ts`. */
function importsIn(file: string, text: string, known: ReadonlySet<string>): Import[] {
  const resolveTarget = (specifier: string) => {
    const path = resolve(dirname(file), specifier);
    return [`${path}.ts`, join(path, "index.ts")].find((candidate) => known.has(candidate)) ?? path;
  };
  return [
    ...[...text.matchAll(FROM)].map((match) => ({
      target: resolveTarget(match[2] as string),
      typeOnly: match[1] !== undefined,
      dynamic: false,
    })),
    ...[...text.matchAll(BARE)].map((match) => ({
      target: resolveTarget(match[1] as string),
      typeOnly: false,
      dynamic: false,
    })),
    ...[...text.matchAll(DYNAMIC)].map((match) => ({
      target: resolveTarget(match[1] as string),
      typeOnly: false,
      dynamic: true,
    })),
  ];
}

const importsOf = (file: string, known: ReadonlySet<string>) =>
  importsIn(file, readFileSync(file, "utf8"), known);

const moduleOf = (file: string) => relative(SRC, file).split("/")[0] as string;

/**
 * The imports of `file` that reach into another top-level folder past its `index.ts` (src/README.md: a folder's
 * index.ts is its public entry, its types.ts a second one for type-only imports; inside a folder, relative imports
 * are free).
 */
function deepImportsAcross(file: string, imports: readonly Import[]): string[] {
  return imports
    .filter(({ target }) => moduleOf(target) !== moduleOf(file))
    .filter(({ target }) => target !== join(SRC, moduleOf(target), "index.ts"))
    .filter(({ target, typeOnly }) => !(typeOnly && target === join(SRC, moduleOf(target), "types.ts")))
    .map(({ target }) => `${relative(SRC, file)} → ${relative(SRC, target)}`);
}

describe("the source's layers", () => {
  const rank = layersFromReadme();
  const files = sourceFiles(SRC);
  const known = new Set(files);

  it("reads every form of import: from, export from, bare, dynamic, type-only", () => {
    const file = join(SRC, "cli", "x.ts");
    const text = [
      'import { a } from "../core/errors";',
      'import type { B } from "../store";',
      "export {",
      "  c,",
      '} from "./shared";',
      'export * from "../compare";',
      'import "../sim";',
      'const m = await import("../report");',
      'type T = import("../api").RunReader;',
      'import yargs from "yargs";',
    ].join("\n");
    const found = importsIn(file, text, known).map((i) => ({ ...i, target: relative(SRC, i.target) }));
    expect(found).toEqual([
      { target: "core/errors.ts", typeOnly: false, dynamic: false },
      { target: "store/index.ts", typeOnly: true, dynamic: false },
      { target: "cli/shared.ts", typeOnly: false, dynamic: false },
      { target: "compare/index.ts", typeOnly: false, dynamic: false },
      { target: "sim/index.ts", typeOnly: false, dynamic: false },
      { target: "report/index.ts", typeOnly: false, dynamic: true },
      { target: "api/index.ts", typeOnly: false, dynamic: true },
    ]);
  });

  it("names every module of src/ in src/README.md", () => {
    const modules = new Set(files.map(moduleOf).filter((name) => !name.endsWith(".ts")));
    expect([...modules].filter((name) => !rank.has(name))).toEqual([]);
  });

  it("has no import from a module on the same or a higher line (src/README.md's import rule)", () => {
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

  it("gives every top-level folder an index.ts", () => {
    const modules = new Set(files.map(moduleOf).filter((name) => !name.endsWith(".ts")));
    expect([...modules].filter((name) => !known.has(join(SRC, name, "index.ts")))).toEqual([]);
  });

  it("tells a deep import across folders from one through the folder's index.ts or inside a folder", () => {
    const file = join(SRC, "cli", "x.ts");
    const text = [
      'import { withRetry } from "../models/retry";',
      'import type { SearchConfig } from "../search/config/config-schema";',
      'export { planSearch } from "../search/plan/plan";',
      'const m = await import("../report/html/eval-page");',
      'import { openRunStore } from "../store/types";',
      'import { HsearchError } from "../core";',
      'import type { RunRecord } from "../store/types";',
      'import { main } from "./main";',
      'import { x } from "./deep/inner";',
    ].join("\n");
    expect(deepImportsAcross(file, importsIn(file, text, known))).toEqual([
      "cli/x.ts → models/retry.ts",
      "cli/x.ts → search/config/config-schema.ts",
      "cli/x.ts → search/plan/plan.ts",
      "cli/x.ts → store/types.ts",
      "cli/x.ts → report/html/eval-page.ts",
    ]);
  });

  it("imports another folder only through its index.ts", () => {
    expect(files.flatMap((file) => deepImportsAcross(file, importsOf(file, known)))).toEqual([]);
  });

  it("has no circle of runtime imports between files", () => {
    const graph = new Map(
      files.map((file) => [
        file,
        importsOf(file, known)
          .filter((i) => !i.typeOnly && !i.dynamic)
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
