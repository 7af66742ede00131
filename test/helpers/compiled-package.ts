import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { sharedFixture } from "./fixture-cache";

/** The prefix of the compiled packages built for a suite run whose fixtures sit in `fixtureRoot`. */
export function compiledPrefix(fixtureRoot: string): string {
  return `.dist-test-${basename(fixtureRoot)}-`;
}

/**
 * The package compiled as `npm run build` (and so `npm pack`'s `prepare`) compiles it, scripts/build.mjs: tsc with
 * declarations, `.js` on relative imports, prompt and profile files copied. Built afresh into a directory of its own
 * in the package root (never the dist/ a user may be running) once per suite run, and shared by the files that run
 * or pack it: tsc over the whole source is one of the suite's costliest steps. `remove` deletes it when it was built
 * for this caller alone; the suite's global teardown removes the shared one.
 */
export async function compiledPackage(): Promise<{ dir: string; remove: () => void }> {
  const fixture = await sharedFixture("compiled", "scripts/build.mjs", async (dir) => {
    // The build's output must sit directly in the package root; the fixture directory records which one.
    const out = join(PACKAGE_ROOT, `${compiledPrefix(dirname(dir))}${basename(dir)}`);
    execFileSync(process.execPath, [join(PACKAGE_ROOT, "scripts", "build.mjs"), basename(out)], {
      stdio: "pipe",
    });
    writeFileSync(join(dir, "out"), out);
  });
  const dir = readFileSync(join(fixture.dir, "out"), "utf8");
  return {
    dir,
    remove: () => {
      if (!fixture.shared) {
        rmSync(dir, { recursive: true, force: true });
        rmSync(fixture.dir, { recursive: true, force: true });
      }
    },
  };
}

let compiledCliArgs: Promise<string[]> | undefined;

/**
 * Node arguments that run the CLI as a child process, compiled as it ships (`compiledPackage`, built once per suite
 * run from the sources under test, so never stale). Tests that start the CLI as a process use it rather than the
 * sources through tsx (SOURCE_CLI, test/helpers/cli.ts): a child through tsx spends some 2–3 s more CPU on loading
 * its modules, and the suite starts dozens. A test file run on its own pays for one build (about 25 s of CPU).
 */
export function compiledCli(): Promise<string[]> {
  compiledCliArgs ??= compiledPackage().then(({ dir }) => [join(dir, "cli", "bin.js")]);
  return compiledCliArgs;
}
