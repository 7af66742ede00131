/**
 * A setup file (vitest.config.ts): each test worker runs in a scratch directory instead of the checkout. What a
 * command or library call writes under its working directory by default (an evaluation's `runs/…`, a search's run)
 * then lands in a temporary directory, while the relative paths tests name (`harnesses/bare`, `tasks/retail`,
 * `search-configs/demo.yaml`) still resolve: every top-level entry of the package but `runs/` and `.git` is a
 * symbolic link to the checkout's. A write through one of those links still reaches the checkout, and
 * test/helpers/checkout-unchanged.ts fails the run for it.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";

const KEY = "__hsearchScratchCwd";
const state = globalThis as { [KEY]?: string };

// Setup files run again before each test file of a worker (isolate: false); the worker keeps one directory.
if (state[KEY] === undefined) {
  const scratch = mkdtempSync(join(tmpdir(), "hsearch-test-cwd-"));
  for (const name of readdirSync(PACKAGE_ROOT))
    if (name !== "runs" && name !== ".git") symlinkSync(join(PACKAGE_ROOT, name), join(scratch, name));
  mkdirSync(join(scratch, "runs"));
  state[KEY] = scratch;
  process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
}
process.chdir(state[KEY]);
