import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";
import { pagesIn } from "./sidebar";
import { slugify } from "./slug";

const docs = fileURLToPath(new URL("..", import.meta.url));

// Built offline: the default theme's fonts are bundled, the search index is local, nothing is fetched from a CDN.
export default defineConfig({
  title: "hsearch",
  description: "Harness search for LLM agents that know when to stop",
  cleanUrls: false,
  lastUpdated: false,
  markdown: { anchor: { slugify } },
  // Links to the repository's own files (../src/README.md, ../CONTRIBUTING.md) are not pages of the site; the
  // link test (test/docs/links.test.ts) checks that they exist.
  ignoreDeadLinks: [
    /^(\.\.\/)+(src|test|bench|scripts|search-configs|harnesses|tasks|examples|schemas|data|config)\//,
    /CONTRIBUTING/,
  ],
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/quick-start" },
      { text: "Reference", link: "/reference/cli/" },
      { text: "Results", link: "/results/" },
      { text: "Design", link: "/DESIGN" },
    ],
    sidebar: {
      "/guide/": [{ text: "Guide", items: pagesIn(`${docs}/guide`, "/guide") }],
      "/reference/": [
        {
          text: "Commands",
          items: [
            { text: "Overview", link: "/reference/cli/" },
            ...pagesIn(`${docs}/reference/cli`, "/reference/cli").filter((p) => !p.link.endsWith("/index")),
          ],
        },
        {
          text: "Formats",
          items: [
            { text: "Search config", link: "/reference/config" },
            { text: "Harness format", link: "/reference/harness" },
          ],
        },
      ],
    },
    search: { provider: "local" },
    outline: { level: [2, 3] },
  },
});
