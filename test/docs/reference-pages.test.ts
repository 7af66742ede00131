/**
 * The reference under docs/reference is generated from the code (scripts/docs/reference-pages.ts): the committed
 * pages are what the generator writes now, so a new option, command or config field cannot be left undocumented.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CLI_DIR, referencePages } from "../../scripts/docs/reference-pages";
import { schemaRows } from "../../scripts/docs/schema-table";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { searchConfigFileSchema } from "../../src/search/config/config-schema";
import { commandTree, type DeclaredCommand } from "../helpers/command-tree";

const DOCS = join(PACKAGE_ROOT, "docs");
const pages = await referencePages();

describe("the generated reference (docs/reference)", () => {
  it("is what npm run docs:gen writes now", () => {
    const stale = [...pages].filter(
      ([path, text]) => !existsSync(join(DOCS, path)) || readFileSync(join(DOCS, path), "utf8") !== text,
    );
    expect(
      stale.map(([path]) => `docs/${path}`),
      "run npm run docs:gen",
    ).toEqual([]);
  });

  it("has no page of a command that is gone", () => {
    const extra = readdirSync(join(DOCS, CLI_DIR)).filter((file) => !pages.has(`${CLI_DIR}/${file}`));
    expect(extra, "run npm run docs:gen").toEqual([]);
  });

  it("has a page for every command, naming each subcommand and option", async () => {
    const missing: string[] = [];
    const check = (page: string, command: DeclaredCommand) => {
      if (command.path.length > 1 && !page.includes(`hsearch ${command.path.join(" ")}\n`))
        missing.push(command.path.join(" "));
      for (const option of command.options) {
        const label = option.kind === "positional" ? `<${option.name}>` : `--${option.name}`;
        if (!page.includes(`\`${label}\``)) missing.push(`${command.path.join(" ")} ${label}`);
      }
      for (const sub of command.subcommands) check(page, sub);
    };
    const tree = await commandTree();
    expect(tree.length).toBeGreaterThan(10);
    for (const command of tree) {
      const page = pages.get(`${CLI_DIR}/${command.path[0]}.md`);
      if (page === undefined) missing.push(`page of ${command.path[0]}`);
      else check(page, command);
    }
    expect(missing).toEqual([]);
  });

  it("documents every field of the search config, nested ones too", () => {
    const page = pages.get("reference/config.md") ?? "";
    const topLevel = Object.keys(
      (z.toJSONSchema(searchConfigFileSchema, { io: "input" }) as { properties: object }).properties,
    );
    expect(topLevel.length).toBeGreaterThan(10);
    for (const key of topLevel) expect(page).toContain(`| \`${key}\` |`);
    const rows = schemaRows(searchConfigFileSchema).map((row) => row.path);
    expect(rows).toContain("acceptance.screen.reject_below");
    expect(rows).toContain("models.<key>.reasoning_effort");
    for (const path of rows) expect(page).toContain(`| \`${path}\` |`);
  });

  it("writes the same pages twice (deterministic)", async () => {
    expect(await referencePages()).toEqual(pages);
  });
});
