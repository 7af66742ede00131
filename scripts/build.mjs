// Compiles src/ to dist/ (or the directory given) for the installed `hsearch` command: `npm run build`, run by
// `npm ci` through `prepare`. Three steps: tsc emits JS and declarations (the library's types); relative imports get the `.js` Node's ESM loader needs
// (the sources import without extensions, as the bundler-style resolution of tsx, vitest and tsc allows); files
// the code reads next to itself at run time (prompts, simulator profiles) are copied beside the JS.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
// The output must sit one level below the package root, as dist/ does: the code finds data/, config/ and the
// shipped suites two directories above its own modules.
const out = resolve(root, process.argv[2] ?? "dist");
if (dirname(out) !== root) throw new Error(`build: the output directory must be directly in ${root}`);

rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", out], {
  stdio: "inherit",
});

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"']*)\2/g;

function withExtension(file, specifier) {
  if (/\.(m?js|json)$/.test(specifier)) return specifier;
  const target = resolve(dirname(file), specifier);
  if (existsSync(`${target}.js`)) return `${specifier}.js`;
  if (existsSync(join(target, "index.js"))) return `${specifier}/index.js`;
  throw new Error(
    `build: ${relative(root, file)} imports ${specifier}, which resolves to no compiled module`,
  );
}

function walk(dir, visit) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, visit);
    else visit(path);
  }
}

// Declarations too: a consumer's TypeScript (module NodeNext) needs the same extensions in `import "hsearch"`'s types.
walk(out, (file) => {
  if (!file.endsWith(".js") && !file.endsWith(".d.ts")) return;
  const code = readFileSync(file, "utf8");
  const fixed = code.replace(
    SPECIFIER,
    (_m, lead, quote, spec) => `${lead}${quote}${withExtension(file, spec)}${quote}`,
  );
  if (fixed !== code) writeFileSync(file, fixed);
});

cpSync(src, out, {
  recursive: true,
  filter: (path) => statSync(path).isDirectory() || !(path.endsWith(".ts") || path.endsWith("README.md")),
});

// npm marks a bin executable on install; a clone running `dist/cli/bin.js` directly needs it too.
chmodSync(join(out, "cli", "bin.js"), 0o755);
