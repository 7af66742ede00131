import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The end-to-end tests: those that spawn the CLI or a worker, start servers, sandboxes, browsers, docker or redis
 * (scripts/test.sh makes sure those programs are here). Every other test file is a unit test: `npm run test:unit`.
 */
const E2E = [
  "test/**/*.e2e.test.ts",
  "test/e2e/**/*.test.ts",
  "test/envs/terminal/**/*.test.ts",
  "test/tasks/harbor/**/*.test.ts",
  "test/tasks/terminal/**/*.test.ts",
  "test/tasks/pair/**/*.test.ts",
  "test/workers/**/*.test.ts",
  "test/serve/**/*.test.ts",
  "test/cli/bin.test.ts",
  "test/cli/sandbox.test.ts",
  "test/cli/tasks-pair.test.ts",
  "test/cli/terminal-output.test.ts",
  "test/hostile/run-lock.test.ts",
  "test/models/http-fetch.test.ts",
  "test/report/viewer.test.ts",
];

export default defineConfig({
  // The examples import the package by its name (`from "hsearch"`), as a project that installed it does; in the
  // tests that name is the sources (test/api/package.e2e.test.ts runs them against the packed package).
  resolve: {
    alias: [{ find: /^hsearch$/, replacement: fileURLToPath(new URL("src/api/index.ts", import.meta.url)) }],
  },
  test: {
    testTimeout: 60_000,
    // Some hooks build whole reference runs (a search, a report's run): seconds on an idle machine, minutes on a
    // loaded one, where a 60 s limit skipped every test of the file behind the hook.
    hookTimeout: 300_000,
    pool: "forks",
    // Files share their worker's module cache instead of each loading the sources, zod, the SDKs and the retail data
    // afresh (about 0.7 s of CPU a file, a fifth of the suite). hsearch is a library too: nothing in it may depend on
    // being the only caller in its process, and a file that leaves state behind (an environment variable, a server,
    // a registered suite) must restore it, which this makes a test of.
    isolate: false,
    // A directory per suite run for fixtures several files share (test/helpers/fixture-cache.ts); and the check
    // that the suite left the checkout as it found it (test/helpers/checkout-unchanged.ts).
    globalSetup: ["test/helpers/global-setup.ts", "test/helpers/checkout-unchanged.ts"],
    // Each worker runs in a scratch directory, not the checkout (test/helpers/scratch-cwd.ts).
    // HSEARCH_TEST_CPU_LOG=FILE: one line per test file, its CPU seconds and path (test/helpers/cpu-per-file.ts).
    setupFiles: ["test/helpers/scratch-cwd.ts", "test/helpers/cpu-per-file.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: E2E } },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
