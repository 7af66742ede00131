/**
 * docs/DESIGN.md stays true to the code: its command-line contract (§8) names every command, subcommand and option
 * the yargs definitions declare, and its config reference (§3, "Search config") every field of the zod schema — and
 * nothing that is gone. A failure names each difference, in both directions.
 *
 * How the document is read (what a writer must keep): in §8 a heading `#### \`hsearch <usage>\`` opens a command's
 * section, its usage exactly as the command registers it under its parents; a table row whose first cell starts with
 * a backticked `--option` documents that option; a link to another §8 heading (`[…](#harness-task-options)`) takes in
 * that section's options too; the section "Global options" lists the options of every command. In "Search config" a
 * table row documents each backticked dotted path in its first cell, `<role>` standing for any key of an object whose
 * values all share one schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { GLOBAL_OPTIONS } from "../../src/cli/main";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { searchConfigFileSchema } from "../../src/search/config/config-schema";
import { commandTree, type DeclaredCommand } from "../helpers/command-tree";

const DESIGN = readFileSync(join(PACKAGE_ROOT, "docs", "DESIGN.md"), "utf8");

/** The lines from the heading that starts with `title` to the next heading of the same or a higher level. */
function section(markdown: string, title: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, "").startsWith(title));
  if (start < 0) throw new Error(`docs/DESIGN.md has no heading starting with "${title}"`);
  const level = /^#+/.exec(lines[start] as string)?.[0].length ?? 0;
  const end = lines.findIndex(
    (line, index) =>
      index > start && (/^#+ /.exec(line)?.[0].length ?? Number.POSITIVE_INFINITY) - 1 <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The backticked spans of a table row's first cell (none for a line that is not a table row). */
function firstCellSpans(line: string): string[] {
  if (!line.startsWith("|")) return [];
  // Cells split at pipes, except escaped ones (`user\|DIR`).
  const cell = line.split(/(?<!\\)\|/)[1] ?? "";
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");

interface DocumentedCommand {
  usage: string;
  options: Set<string>;
}

/** §8 as data: each command section's usage and options (with the options of the sections it links to). */
function documentedCommands(): { commands: Map<string, DocumentedCommand>; global: Set<string> } {
  const sections: Array<{ heading: string; lines: string[] }> = [];
  for (const line of section(DESIGN, "8. Command line")) {
    const heading = /^#{3,4} (.*)$/.exec(line)?.[1];
    if (heading !== undefined) sections.push({ heading, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  const optionsIn = (lines: string[]) =>
    new Set(
      lines.flatMap((line) => {
        const name = /^--([a-z0-9][a-z0-9-]*)/.exec(firstCellSpans(line)[0] ?? "")?.[1];
        return name === undefined ? [] : [name];
      }),
    );
  const byAnchor = new Map(sections.map((s) => [anchorOf(s.heading), optionsIn(s.lines)]));
  const commands = new Map<string, DocumentedCommand>();
  for (const { heading, lines } of sections) {
    const usage = /^`hsearch ([^`]+)`$/.exec(heading)?.[1];
    if (usage === undefined) continue;
    const options = optionsIn(lines);
    for (const [, anchor] of lines.join("\n").matchAll(/\]\(#([a-z0-9-]+)\)/g))
      for (const name of byAnchor.get(anchor as string) ?? []) options.add(name);
    commands.set(commandKey(usage), { usage, options });
  }
  return { commands, global: byAnchor.get("global-options") ?? new Set() };
}

/** A command's words without its positionals: `tasks import-harbor <dir>` → `tasks import-harbor`. */
const commandKey = (usage: string) =>
  usage
    .split(/\s+/)
    .filter((word) => !/^[<[]/.test(word))
    .join(" ");

/** Every command a user can name: the leaves, and any parent that has options of its own. */
function declaredCommands(tree: readonly DeclaredCommand[], parents: string[] = []): DocumentedCommand[] {
  return tree.flatMap((command) => {
    const usage = [...parents, command.usage].join(" ");
    const options = new Set(command.options.filter((o) => o.kind === "option").map((o) => o.name));
    const here = command.subcommands.length === 0 || options.size > 0 ? [{ usage, options }] : [];
    return [...here, ...declaredCommands(command.subcommands, [...parents, command.path.at(-1) as string])];
  });
}

/** Where the two sides differ, one line each, in both directions. */
function differences(documented: Map<string, DocumentedCommand>, declared: DocumentedCommand[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const command of declared) {
    const key = commandKey(command.usage);
    seen.add(key);
    const doc = documented.get(key);
    if (!doc) {
      problems.push(`undocumented command: hsearch ${command.usage}`);
      continue;
    }
    if (doc.usage !== command.usage)
      problems.push(
        `hsearch ${key}: documented as "hsearch ${doc.usage}", declared as "hsearch ${command.usage}"`,
      );
    for (const name of command.options)
      if (!doc.options.has(name)) problems.push(`hsearch ${key}: undocumented option --${name}`);
    for (const name of doc.options)
      if (!command.options.has(name))
        problems.push(`hsearch ${key}: documented option --${name} is not declared`);
  }
  for (const [key, doc] of documented)
    if (!seen.has(key)) problems.push(`documented command is not declared: hsearch ${doc.usage}`);
  return problems;
}

type AnySchema = z.core.$ZodType;

/** Wrappers whose inner schema is what a config file writes. */
function inner(schema: AnySchema): AnySchema[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return inner(def.innerType as AnySchema);
    case "pipe":
      return inner(def.in as AnySchema);
    case "lazy":
      return inner((def.getter as () => AnySchema)());
    case "union":
      return (def.options as AnySchema[]).flatMap(inner);
    case "intersection":
      return [...inner(def.left as AnySchema), ...inner(def.right as AnySchema)];
    case "array":
      // A list's fields are its elements' (a list of objects documents `list.field`).
      return inner(def.element as AnySchema);
    default:
      return [schema];
  }
}

/**
 * The fields of a config, as dotted paths: every leaf (a value that is not an object), plus `objects`, the paths of
 * the objects between them. An object whose values all share one object schema (the role blocks of `models`) has
 * `*` for its key.
 */
function configFields(
  schema: AnySchema,
  prefix = "",
  out = { leaves: new Set<string>(), objects: new Set<string>() },
) {
  for (const variant of inner(schema)) {
    const def = variant._zod.def as unknown as { type: string; shape?: Record<string, AnySchema> };
    if (def.type !== "object" || !def.shape) {
      if (prefix) out.leaves.add(prefix);
      continue;
    }
    if (prefix) out.objects.add(prefix);
    const entries = Object.entries(def.shape);
    const shared = entries.map(([, value]) => inner(value)).map((variants) => variants[0]);
    const oneShape =
      entries.length > 1 &&
      shared.every((value, _i, all) => value === all[0] && value?._zod.def.type === "object");
    if (oneShape) configFields(entries[0]?.[1] as AnySchema, join2(prefix, "*"), out);
    else for (const [key, value] of entries) configFields(value, join2(prefix, key), out);
  }
  return out;
}

const join2 = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** The config paths the reference documents, `<placeholder>` segments as `*`. */
function documentedConfigFields(): Set<string> {
  return new Set(
    section(DESIGN, "Search config")
      .flatMap(firstCellSpans)
      .filter((span) => /^[a-z_]+(\.([a-z_]+|<[a-z_]+>))*$/.test(span))
      .map((span) => span.replace(/<[a-z_]+>/g, "*")),
  );
}

describe("docs/DESIGN.md's command-line contract (§8)", () => {
  it("documents every command and option the yargs definitions declare, and nothing else", async () => {
    const { commands } = documentedCommands();
    expect(commands.size).toBeGreaterThan(0);
    expect(differences(commands, declaredCommands(await commandTree()))).toEqual([]);
  });

  it("documents the global options", () => {
    expect([...documentedCommands().global].sort()).toEqual([...Object.keys(GLOBAL_OPTIONS), "help"].sort());
  });

  it("tells a missing command, a missing option and a stale one apart", () => {
    const documented = new Map([
      ["status", { usage: "status <run>", options: new Set(["json", "gone"]) }],
      ["old", { usage: "old", options: new Set<string>() }],
    ]);
    const declared = [
      { usage: "status <run>", options: new Set(["json", "wide"]) },
      { usage: "tasks pair <dir>", options: new Set(["out"]) },
    ];
    expect(differences(documented, declared)).toEqual([
      "hsearch status: undocumented option --wide",
      "hsearch status: documented option --gone is not declared",
      "undocumented command: hsearch tasks pair <dir>",
      "documented command is not declared: hsearch old",
    ]);
  });
});

describe("docs/DESIGN.md's config reference (§3, Search config)", () => {
  const { leaves, objects } = configFields(searchConfigFileSchema as unknown as AnySchema);
  const documented = documentedConfigFields();

  it("documents every field of the search config schema, nested ones too", () => {
    expect(leaves.size).toBeGreaterThan(20);
    expect([...leaves].filter((path) => !documented.has(path))).toEqual([]);
  });

  it("documents no field the schema does not have", () => {
    expect([...documented].filter((path) => !leaves.has(path) && !objects.has(path))).toEqual([]);
  });

  it("reads nested objects, unions and shared blocks as paths", () => {
    expect(leaves).toContain("acceptance.screen.reject_below");
    expect(leaves).toContain("acceptance.min_tasks");
    expect(leaves).toContain("models.*.reasoning_effort");
    expect(leaves).toContain("models");
    expect(objects).toContain("models.*");
    expect(leaves).not.toContain("budget");
  });
});
