// Writes the generated reference pages under docs/ (`npm run docs:gen`) and removes command pages whose command
// is gone; test/docs/reference-pages.test.ts checks the committed pages are current.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { CLI_DIR, referencePages } from "./reference-pages";

const docs = join(PACKAGE_ROOT, "docs");
const pages = await referencePages();
mkdirSync(join(docs, CLI_DIR), { recursive: true });
for (const file of readdirSync(join(docs, CLI_DIR)))
  if (!pages.has(`${CLI_DIR}/${file}`)) rmSync(join(docs, CLI_DIR, file));
for (const [path, text] of pages) {
  mkdirSync(dirname(join(docs, path)), { recursive: true });
  writeFileSync(join(docs, path), text);
}
console.log(`wrote ${pages.size} pages under docs/reference`);
