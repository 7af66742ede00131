/**
 * The guide's sidebar, read from the pages themselves: every `docs/guide/*.md`, ordered by its frontmatter
 * `order` (pages without one after those with one) and then by title, so a new page appears without an edit here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export interface SidebarItem {
  text: string;
  link: string;
}

interface Page extends SidebarItem {
  order: number;
}

/** A page's frontmatter fields, if it opens with a `---` block. */
function frontmatter(text: string): Record<string, unknown> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  const data = match ? (parse(match[1] ?? "") as unknown) : undefined;
  return data && typeof data === "object" ? (data as Record<string, unknown>) : {};
}

/** The page's title: its frontmatter title, else its first `# ` heading, else its file name. */
function titleOf(text: string, file: string): string {
  const data = frontmatter(text);
  if (typeof data.title === "string") return data.title;
  return /^# (.+)$/m.exec(text)?.[1]?.trim() ?? file.replace(/\.md$/, "");
}

export function pagesIn(dir: string, base: string): SidebarItem[] {
  const pages: Page[] = readdirSync(dir)
    .filter((file) => file.endsWith(".md"))
    .map((file) => {
      const text = readFileSync(join(dir, file), "utf8");
      const order = frontmatter(text).order;
      return {
        text: titleOf(text, file),
        link: `${base}/${file.replace(/\.md$/, "")}`,
        order: typeof order === "number" ? order : Number.POSITIVE_INFINITY,
      };
    });
  pages.sort((a, b) => a.order - b.order || a.text.localeCompare(b.text, "en"));
  return pages.map(({ text, link }) => ({ text, link }));
}
