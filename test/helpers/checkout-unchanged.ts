import { execFileSync } from "node:child_process";
import { PACKAGE_ROOT } from "../../src/core/paths";

/** What the build and the suite's own compiled package may leave: ignored, rebuilt by every run. */
const EXPECTED = /^!! (node_modules\/|dist\/|\.dist-test-)/;

/** The checkout's `git status --porcelain --ignored`, a line an entry, less what the build may leave. */
export function checkoutStatus(dir: string): string[] {
  return execFileSync("git", ["status", "--porcelain", "--ignored"], { cwd: dir, encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "" && !EXPECTED.test(line));
}

/** Each entry that appeared or vanished between two statuses, as `new: …` or `gone: …`; none when unchanged. */
export function checkoutChanges(before: string[], after: string[]): string[] {
  return [
    ...after.filter((line) => !before.includes(line)).map((line) => `new: ${line}`),
    ...before.filter((line) => !after.includes(line)).map((line) => `gone: ${line}`),
  ];
}

/**
 * A global setup (vitest.config.ts): tests write only to temporary directories, so the checkout's
 * `git status --porcelain --ignored` after the suite is what it was before; the teardown fails the run otherwise,
 * naming what appeared or vanished.
 */
export default function setup(): () => void {
  const before = checkoutStatus(PACKAGE_ROOT);
  return () => {
    const changes = checkoutChanges(before, checkoutStatus(PACKAGE_ROOT));
    if (changes.length === 0) return;
    console.error(
      `\nFAIL the tests changed the checkout (${PACKAGE_ROOT}); tests write only to temporary directories:\n` +
        changes.map((change) => `  ${change}`).join("\n"),
    );
    // vitest reports an error thrown by a teardown but still exits 0.
    process.exitCode = 1;
  };
}
