import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { inject } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";

declare module "vitest" {
  export interface ProvidedContext {
    /** A directory made for one suite run (test/helpers/global-setup.ts), where fixtures are built once. */
    fixtureRoot: string;
  }
}

/** What a fixture is made of besides its own recipe: the code and the shipped files a run reads. */
const INPUTS = ["src", "harnesses", "tasks", "data", "config", "search-configs", "package.json"];

let contentKey: string | undefined;

/** A hash of every file under INPUTS: a fixture built from other sources is never found by this key. */
function inputsHash(): string {
  if (contentKey) return contentKey;
  const hash = createHash("sha256");
  const visit = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
      return;
    }
    hash.update(relative(PACKAGE_ROOT, path)).update("\0").update(readFileSync(path)).update("\0");
  };
  for (const input of INPUTS) if (existsSync(join(PACKAGE_ROOT, input))) visit(join(PACKAGE_ROOT, input));
  contentKey = hash.digest("hex");
  return contentKey;
}

/**
 * The directory `build` fills, built once per suite run for the same `name`, `recipe` and sources, and shared by the
 * test files that ask for it (a whole reference run costs tens of seconds of CPU; several files read the same one).
 * Callers treat it as read-only and copy what they change. Outside a vitest run with the global setup (a script
 * regenerating a fixture, say), it is built afresh each time (`shared` false: the caller may remove it).
 */
export async function sharedFixture(
  name: string,
  recipe: unknown,
  build: (dir: string) => Promise<void>,
): Promise<{ dir: string; shared: boolean }> {
  let root: string | undefined;
  try {
    root = inject("fixtureRoot");
  } catch {
    root = undefined;
  }
  if (!root) {
    const dir = mkdtempSync(join(tmpdir(), `hsearch-fixture-${name}-`));
    await build(dir);
    return { dir, shared: false };
  }
  const key = createHash("sha256")
    .update(inputsHash())
    .update(JSON.stringify({ name, recipe }))
    .digest("hex");
  // Built in place (a fixture may hold its own absolute paths, as a run's config holds its task directory), under
  // a lock directory: a second worker asking meanwhile waits for the first one's.
  const dir = join(root, `${name}-${key.slice(0, 16)}`);
  const complete = join(dir, ".complete");
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(complete)) return { dir, shared: true };
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      await build(dir);
      writeFileSync(complete, "");
      return { dir, shared: true };
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** A private copy of a shared fixture's directory (or a part of it) in a new temp directory. */
export function copyFixture(from: string, prefix: string): string {
  const to = mkdtempSync(join(tmpdir(), prefix));
  cpSync(from, to, { recursive: true, filter: (path) => !path.endsWith("/.complete") });
  return to;
}
