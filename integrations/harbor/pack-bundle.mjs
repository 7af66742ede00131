#!/usr/bin/env node
// Makes the offline bundle install.sh installs from: hsearch's shipped files (package.json's "files", with the
// compiled dist/), its production dependencies as installed here (native modules included, so the bundle runs on
// this machine's platform: linux-x64 with glibc for a Debian or Ubuntu task image), and this Node's binary.
//   node integrations/harbor/pack-bundle.mjs --out hsearch-bundle.tgz [--dist DIR]
// Run from a checkout after `npm ci` (which builds dist/), or from an installed hsearch.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({ options: { out: { type: "string" }, dist: { type: "string" } } });
if (!values.out) {
  console.error("pack-bundle: --out FILE is required");
  process.exit(2);
}
const dist = resolve(values.dist ?? join(root, "dist"));
if (!existsSync(join(dist, "cli", "bin.js"))) {
  console.error(`pack-bundle: ${dist} holds no compiled CLI (cli/bin.js): run npm run build first`);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const stage = mkdtempSync(join(tmpdir(), "hsearch-bundle-"));
try {
  const pkg = join(stage, "hsearch");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  for (const entry of manifest.files) {
    const name = entry.replace(/\/$/, "");
    if (name === "dist") cpSync(dist, join(pkg, "dist"), { recursive: true });
    else if (existsSync(join(root, name))) cpSync(join(root, name), join(pkg, name), { recursive: true });
  }
  // The production dependency closure, each package where npm installed it.
  const paths = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\n")
    .filter((line) => line.startsWith(join(root, "node_modules")));
  // A nested package comes with the package it is nested in.
  const tops = paths.filter((path) => !paths.some((other) => path !== other && path.startsWith(`${other}/`)));
  for (const path of tops) cpSync(path, join(pkg, relative(root, path)), { recursive: true });
  mkdirSync(join(stage, "node", "bin"), { recursive: true });
  cpSync(process.execPath, join(stage, "node", "bin", "node"));
  execFileSync("tar", ["-czf", resolve(values.out), "-C", stage, "hsearch", "node"]);
  console.log(`wrote ${resolve(values.out)}: hsearch ${manifest.version}, ${paths.length} packages, node ${process.version}`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
