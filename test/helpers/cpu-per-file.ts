/**
 * A setup file (vitest.config.ts) that, when HSEARCH_TEST_CPU_LOG names a file, appends one line per test file: its
 * CPU seconds (user + system of the worker while the file ran, and of the child processes it started and reaped)
 * and its path. `sort -rn` on that file says where the suite's time goes; wall time on a shared machine does not.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";

const log = process.env.HSEARCH_TEST_CPU_LOG;

/** utime + stime + cutime + cstime of this process, in clock ticks (fields 14–17 of /proc/self/stat). */
function ticks(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(")").at(-1)?.trim().split(" ") ?? [];
  // After the command name: field 3 (state) is index 0, so field n is index n − 3.
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
}

if (log) {
  // Setup files run again before each test file is imported, so its imports count too.
  const start = ticks();
  afterAll(() => {
    const file = relative(PACKAGE_ROOT, expect.getState().testPath ?? "unknown");
    // Linux reports clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on here.
    appendFileSync(log, `${((ticks() - start) / 100).toFixed(1)} ${file}\n`);
  });
}
