import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The examples import the package by its name (`from "hsearch"`), as a project that installed it does; in the
  // tests that name is the sources (test/api/package.e2e.test.ts runs them against the packed package).
  resolve: {
    alias: [{ find: /^hsearch$/, replacement: fileURLToPath(new URL("src/api/index.ts", import.meta.url)) }],
  },
  test: {
    include: ["test/**/*.test.ts"],
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
    // A directory per suite run for fixtures several files share (test/helpers/fixture-cache.ts).
    globalSetup: ["test/helpers/global-setup.ts"],
    // HSEARCH_TEST_CPU_LOG=FILE: one line per test file, its CPU seconds and path (test/helpers/cpu-per-file.ts).
    setupFiles: ["test/helpers/cpu-per-file.ts"],
  },
});
