/**
 * The CLI is a thin layer over the library (src/README.md, "The CLI's rule"): a file of src/cli imports the package
 * entry (src/api/index.ts), src/core, other cli files and npm packages — nothing else below it; and no cli file
 * imports a command's file (shared printing lives in cli/text/, shared options in cli/shared.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/command-list";
import { PACKAGE_ROOT } from "../../src/core/paths";

const SRC = join(PACKAGE_ROOT, "src");
const CLI = join(SRC, "cli");

/** Every relative specifier a file loads: `import … from`, `export … from`, bare and dynamic imports. */
function specifiers(text: string): string[] {
  const forms = [
    /(?:^|\n)\s*(?:import|export)(?:\s+type)?\s[^'"]*?from\s+["'](\.[^"']+)["']/g,
    /(?:^|\n)\s*import\s*["'](\.[^"']+)["']/g,
    /\bimport\s*\(\s*["'](\.[^"']+)["']\s*\)/g,
  ];
  return forms.flatMap((form) => [...text.matchAll(form)].map((match) => match[1] as string));
}

/** Where a specifier of `file` lands, relative to src/ (`api/index.ts` for `../api`). */
function landing(file: string, specifier: string): string {
  const path = resolve(dirname(file), specifier);
  const candidates = [`${path}.ts`, join(path, "index.ts")];
  const found = candidates.find((candidate) => {
    try {
      readFileSync(candidate);
      return true;
    } catch {
      return false;
    }
  });
  return relative(SRC, found ?? path);
}

/** What a cli file may import besides cli files: the package entry and core. */
function allowed(target: string): boolean {
  return target === "api/index.ts" || target.startsWith("core/") || target.startsWith("cli/");
}

const cliFiles = readdirSync(CLI, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => join(CLI, file));

/** The file of each command (`cli/<name>.ts`, as command-list.ts loads it), which only command-list.ts imports. */
const commandFiles = new Set(
  [...readFileSync(join(CLI, "command-list.ts"), "utf8").matchAll(/import\("\.\/([^"]+)"\)/g)].map(
    (match) => `cli/${match[1]}.ts`,
  ),
);

function violations(file: string, text: string): string[] {
  const from = relative(SRC, file);
  return specifiers(text).flatMap((specifier) => {
    const target = landing(file, specifier);
    if (!allowed(target)) return [`${from} → ${target}`];
    if (commandFiles.has(target) && from !== "cli/command-list.ts")
      return [`${from} → ${target} (a command)`];
    return [];
  });
}

describe("the CLI is thin over the package entry", () => {
  it("finds each command's file", () => {
    expect(commandFiles.size).toBe(Object.keys(COMMANDS).length);
    for (const file of commandFiles) expect(cliFiles).toContain(join(SRC, file));
  });

  it("refuses an import below the package entry, a deep api import and an import of another command", () => {
    const file = join(CLI, "x.ts");
    const text = [
      'import { openRunStore } from "../store";',
      'import type { BeliefsReport } from "../api/probe";',
      'import { renderStatus } from "./status";',
      'const m = await import("../report");',
      'import { HsearchError } from "../core/errors";',
      'import { evaluate } from "../api";',
      'import { formatTable } from "./text/table";',
      'import yargs from "yargs";',
    ].join("\n");
    expect(violations(file, text)).toEqual([
      "cli/x.ts → store/index.ts",
      "cli/x.ts → api/probe.ts",
      "cli/x.ts → cli/status.ts (a command)",
      "cli/x.ts → report/index.ts",
    ]);
  });

  it("has every cli file import only the package entry, core and cli helpers", () => {
    const found = cliFiles.flatMap((file) => violations(file, readFileSync(file, "utf8")));
    expect(found).toEqual([]);
  });
});
