/**
 * Every relative link and #anchor of the README, CONTRIBUTING.md and the documentation site resolves: the file
 * exists, and an anchor names a heading of it (anchors as GitHub and the site make them, docs/.vitepress/slug.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { slugify } from "../../docs/.vitepress/slug";
import { PACKAGE_ROOT } from "../../src/core/paths";

/** The Markdown files a reader follows links in. */
function documents(): string[] {
  const out = ["README.md", "CONTRIBUTING.md"].map((file) => join(PACKAGE_ROOT, file));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) out.push(path);
    }
  };
  walk(join(PACKAGE_ROOT, "docs"));
  return out;
}

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/(`+)[\s\S]*?\1/g, "");
}

function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1] as string,
  );
}

/** The anchors a page defines: its headings' slugs (a repeated one gets -1, -2 …) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of text.matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const explicit = /\{#([^}]+)\}$/.exec(heading as string)?.[1];
    if (explicit) {
      anchors.add(explicit);
      continue;
    }
    const base = slugify((heading as string).replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(id as string);
  return anchors;
}

/** Where a link points: a file (a site path `/guide/x` is docs/guide/x.md; a folder is its index or README). */
function target(from: string, path: string): string | undefined {
  const base = path.startsWith("/") ? join(PACKAGE_ROOT, "docs", path) : join(dirname(from), path);
  const candidates = [base, `${base}.md`, join(base, "index.md"), join(base, "README.md")];
  if (base.endsWith(".html")) candidates.push(base.replace(/\.html$/, ".md"));
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

function brokenLinks(file: string): string[] {
  const markdown = readFileSync(file, "utf8");
  const problems: string[] = [];
  for (const link of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
    const [path = "", anchor] = link.split("#");
    const resolved = path === "" ? file : target(file, decodeURI(path));
    if (!resolved) {
      problems.push(`${relative(PACKAGE_ROOT, file)}: ${link}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith(".md") && !anchorsOf(readFileSync(resolved, "utf8")).has(anchor))
      problems.push(`${relative(PACKAGE_ROOT, file)}: ${link}: no heading #${anchor}`);
  }
  return problems;
}

describe("links in the README and the documentation", () => {
  it("resolve: every relative link to a file that exists, every #anchor to a heading", () => {
    const files = documents();
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it("reads links and anchors as a reader follows them", () => {
    expect(linksOf("[a](x.md#b) `[c](d.md)` ![i](p.png)\n```\n[e](f.md)\n```\n")).toEqual([
      "x.md#b",
      "p.png",
    ]);
    expect([...anchorsOf("# A `b` c\n## Same\n## Same\n### 3. Formats\n## X {#own}\n")]).toEqual([
      "a-b-c",
      "same",
      "same-1",
      "3-formats",
      "own",
    ]);
  });
});
