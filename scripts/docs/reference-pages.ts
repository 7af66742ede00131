/**
 * The generated reference: one page per command from the yargs definitions (walked by test/helpers/command-tree),
 * one page of the search config and one of the harness format from their zod schemas. `npm run docs:gen` writes
 * them; test/docs/reference-pages.test.ts fails when a committed page differs from what this makes now.
 */
import { GLOBAL_OPTIONS } from "../../src/cli/main";
import { harnessConfigSchema, playbookSchema } from "../../src/config/harness-schema";
import { searchConfigFileSchema } from "../../src/search/config/config-schema";
import { commandTree, type DeclaredCommand, type DeclaredOption } from "../../test/helpers/command-tree";
import { cell, code, GENERATED_NOTE, table } from "./markdown";
import { type FieldRow, schemaRows } from "./schema-table";

/** The folder of the per-command pages, relative to docs/. */
export const CLI_DIR = "reference/cli";

/** Every generated page: its path under docs/ and its text. */
export async function referencePages(): Promise<Map<string, string>> {
  const commands = await commandTree();
  const pages = new Map<string, string>();
  for (const command of commands) pages.set(`${CLI_DIR}/${command.path[0]}.md`, commandPage(command));
  pages.set(`${CLI_DIR}/index.md`, commandIndex(commands));
  pages.set("reference/config.md", configPage());
  pages.set("reference/harness.md", harnessPage());
  return pages;
}

function commandPage(command: DeclaredCommand): string {
  const name = command.path.join(" ");
  const parts = [
    "---",
    `title: hsearch ${name}`,
    "---",
    GENERATED_NOTE,
    "",
    `# hsearch ${name}`,
    "",
    commandBody(command, 2),
    "## Global options",
    "",
    "Every command also takes these, and `--help`.",
    "",
    optionTable(globalOptions()),
    "",
  ];
  return parts.join("\n");
}

function commandBody(command: DeclaredCommand, level: number): string {
  const lines = ["```", `hsearch ${[...command.path.slice(0, -1), command.usage].join(" ")}`, "```", ""];
  lines.push(`${cell(command.describe)}`, "");
  const options = merged(command.options);
  const positionals = options.filter((o) => o.kind === "positional");
  const flags = options.filter((o) => o.kind === "option");
  if (positionals.length > 0) lines.push("**Arguments**", "", optionTable(positionals), "");
  if (flags.length > 0) lines.push("**Options**", "", optionTable(flags), "");
  for (const sub of command.subcommands) {
    lines.push(`${"#".repeat(level)} hsearch ${sub.path.join(" ")}`, "", commandBody(sub, level + 1));
  }
  return lines.join("\n");
}

/**
 * One entry per name: a builder may declare an option twice (a shared set, then a command's own default), and
 * yargs keeps the later settings over the earlier ones.
 */
function merged(options: readonly DeclaredOption[]): DeclaredOption[] {
  const byName = new Map<string, DeclaredOption>();
  for (const option of options) {
    const seen = byName.get(option.name);
    byName.set(option.name, seen ? { ...seen, settings: { ...seen.settings, ...option.settings } } : option);
  }
  return [...byName.values()];
}

function optionTable(options: DeclaredOption[]): string {
  return table(
    ["name", "type", "default", "description"],
    options.map(({ name, kind, settings }) => {
      const alias = [settings.alias ?? []].flat().map((a) => `-${a}`);
      const label = kind === "positional" ? `<${name}>` : [`--${name}`, ...alias].join(", ");
      const required = settings.demandOption ? " (required)" : "";
      return [
        code(label),
        cell(typeOfOption(settings)) + required,
        defaultOf(settings),
        cell(describe(settings)),
      ];
    }),
  );
}

function typeOfOption(settings: Record<string, unknown>): string {
  if (Array.isArray(settings.choices)) return settings.choices.map(String).join(" | ");
  const type = typeof settings.type === "string" ? settings.type : "string";
  return settings.array ? `${type}…` : type;
}

function defaultOf(settings: Record<string, unknown>): string {
  const value = settings.default;
  if (value === undefined) return "";
  return code(typeof value === "string" ? value : JSON.stringify(value));
}

const describe = (settings: Record<string, unknown>) =>
  typeof settings.describe === "string" ? settings.describe : "";

function globalOptions(): DeclaredOption[] {
  return Object.entries(GLOBAL_OPTIONS).map(([name, settings]) => ({
    name,
    kind: "option" as const,
    settings: { ...settings },
  }));
}

function commandIndex(commands: DeclaredCommand[]): string {
  const rows = commands.map((command) => [
    `[${code(`hsearch ${command.usage}`)}](./${command.path[0]}.md)`,
    cell(command.describe),
  ]);
  return [
    "---",
    "title: Commands",
    "---",
    GENERATED_NOTE,
    "",
    "# Commands",
    "",
    "Every command exits 0 on success, 1 when a run fails and 2 on bad input, with a message naming the file,",
    "field and line where it can. `hsearch <command> --help` prints the same options.",
    "",
    table(["command", "what it does"], rows),
    "",
  ].join("\n");
}

function fieldTable(rows: FieldRow[]): string {
  return table(
    ["field", "type", "default", "description"],
    rows.map((row) => [
      code(row.path),
      cell(row.type) + (row.required ? " (required)" : ""),
      code(row.default),
      cell(row.description),
    ]),
  );
}

function configPage(): string {
  return [
    "---",
    "title: Search config",
    "---",
    GENERATED_NOTE,
    "",
    "# Search config",
    "",
    "The fields of a search config (`search-configs/*.yaml`, the argument of `hsearch run`), from its zod schema",
    "(`src/search/config/config-schema.ts`). A path `a.b` is field `b` of the object `a`; `a.<key>` is any key of a map;",
    "`a[]` is an element of a list. A field without a default is optional unless marked required. The same schema",
    "is `schemas/search-config.schema.json`, for editors. Its meaning, with examples, is in",
    "[DESIGN §3](../DESIGN.md#search-config-yaml-validated-by-zod-a-json-schema-is-generated-for-editors).",
    "",
    fieldTable(schemaRows(searchConfigFileSchema)),
    "",
  ].join("\n");
}

function harnessPage(): string {
  return [
    "---",
    "title: Harness format",
    "---",
    GENERATED_NOTE,
    "",
    "# Harness format",
    "",
    "A harness is a directory under git: `harness.yaml`, `system.md` (the system prompt, with `{{policy}}`,",
    "`{{protocols}}` and `{{playbook}}` filled in), `playbook.yaml` and, optionally, `prompts/self-check.md`,",
    "`report.md`, `challenge.md` and `continue.md`. The two YAML files' fields, from their zod schemas",
    "(`src/config/harness-schema.ts`), follow. See [DESIGN §3](../DESIGN.md#3-formats) for what each does.",
    "",
    "## harness.yaml",
    "",
    fieldTable(schemaRows(harnessConfigSchema)),
    "",
    "## playbook.yaml",
    "",
    "A list of stopping rules. A pattern in `when.any` is a phrase (matched case-insensitively as a substring) or",
    "a regex written `/…/flags`, run on RE2 (no backreferences or lookaround); one that matches the empty text is",
    "refused. Rule ids are unique.",
    "",
    fieldTable(schemaRows(playbookSchema)),
    "",
  ].join("\n");
}
