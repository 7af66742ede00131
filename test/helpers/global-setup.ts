import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { compiledPrefix } from "./compiled-package";

/**
 * One directory per suite run for the fixtures test files share (test/helpers/fixture-cache.ts): nothing built is
 * found by a later run, so a run always pays for its own fixtures and measures what it costs. The teardown removes
 * it, and the compiled package built for the run in the package root (test/helpers/compiled-package.ts).
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "hsearch-test-fixtures-"));
  project.provide("fixtureRoot", root);
  return () => {
    rmSync(root, { recursive: true, force: true });
    for (const name of readdirSync(PACKAGE_ROOT))
      if (name.startsWith(compiledPrefix(root)))
        rmSync(join(PACKAGE_ROOT, name), { recursive: true, force: true });
  };
}
