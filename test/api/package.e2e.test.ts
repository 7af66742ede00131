/**
 * `import { startRun, openRun } from "hsearch"` from a fresh project: the packed tarball (`npm pack` of dist/ as its
 * `prepare` builds it, with its declarations) unpacked as the project's node_modules/hsearch, its dependencies linked
 * from this checkout's node_modules (what `npm install` of the tarball would fetch, without the network). The consumer's types
 * are checked by tsc (module NodeNext, as a Node ESM project has them), the package's declarations with them (no
 * skipLibCheck), and examples/library-run.mjs runs.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { compiledPackage } from "../helpers/compiled-package";

const project = mkdtempSync(join(tmpdir(), "hsearch-consumer-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const CONSUMER = `import {
  compareRunDirs,
  diffRun,
  digestPrompt,
  evaluateRequest,
  importHarborTasks,
  listTasks,
  openRun,
  pairTasks,
  probeBeliefsRequest,
  readRunStatus,
  type RunEvent,
  type RunReader,
  runSandboxCommand,
  serveHarness,
  startRun,
  startWorker,
} from "hsearch";
// What every command calls is the package's own (defined, not run here: the declarations must type-check).
const commands = [compareRunDirs, diffRun, digestPrompt, evaluateRequest, importHarborTasks, listTasks, pairTasks,
  probeBeliefsRequest, runSandboxCommand, serveHarness, startWorker];
const statusKind = async (dir: string): Promise<"search" | "eval" | "probe"> =>
  (await readRunStatus(dir, { cwd: "." })).kind;
console.log(commands.length, typeof statusKind);
const handle = startRun("config.yaml", { signal: new AbortController().signal });
handle.on((event: RunEvent) => {
  if (event.type === "round") console.log(event.incumbent.slice(0, 12), event.score.toFixed(4));
});
const { runDir } = await handle.result;
const run: RunReader = openRun(runDir);
const rounds: number[] = run.rounds().map((round) => round.round);
console.log(rounds, run.candidates().length);
run.close();
`;

describe("the packed package", () => {
  it("installs into a fresh project whose TypeScript checks an import of the API, and runs the example", async () => {
    // `npm pack` runs `prepare`, which is the build: its output is the suite's compiled package (the same
    // scripts/build.mjs, built once per suite run), put where the build puts it, then packed without scripts.
    const scripts = (
      JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.prepare).toBe("npm run build");
    expect(scripts.build).toBe("node scripts/build.mjs");
    const compiled = await compiledPackage();
    try {
      rmSync(join(PACKAGE_ROOT, "dist"), { recursive: true, force: true });
      cpSync(compiled.dir, join(PACKAGE_ROOT, "dist"), { recursive: true });
    } finally {
      compiled.remove();
    }
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", project], {
        cwd: PACKAGE_ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }),
    ) as Array<{ filename: string }>;
    const tarball = join(project, packed[0]?.filename ?? "");
    const installed = join(project, "node_modules", "hsearch");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const modules = join(PACKAGE_ROOT, "node_modules");
    for (const name of [...Object.keys(manifest.dependencies), "@types/node"]) {
      const target = join(project, "node_modules", name);
      mkdirSync(join(target, ".."), { recursive: true });
      symlinkSync(join(modules, name), target);
    }
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", type: "module", private: true }),
    );
    writeFileSync(join(project, "consumer.ts"), CONSUMER);
    const tsc = createRequire(join(PACKAGE_ROOT, "package.json")).resolve("typescript/bin/tsc");
    const typecheck = [
      tsc,
      "--noEmit",
      "--strict",
      // Without skipLibCheck: every declaration file the API's types reach is checked, so a public type that leaks an
      // internal one built on a devDependency's types (the store's better-sqlite3 Database) fails here.
      "--skipLibCheck",
      "false",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      "consumer.ts",
    ];
    execFileSync(process.execPath, typecheck, { cwd: project, stdio: "inherit" });
    // A wrong use is refused by the same check: the types are real, not `any`.
    writeFileSync(join(project, "consumer.ts"), `${CONSUMER}const wrong: string = run.rounds();\n`);
    // tsc prints its errors on stdout.
    const refused = (() => {
      try {
        execFileSync(process.execPath, typecheck, { cwd: project, encoding: "utf8", stdio: "pipe" });
        return "";
      } catch (error) {
        return String((error as { stdout?: string }).stdout);
      }
    })();
    expect(refused).toMatch(/consumer\.ts\(\d+,\d+\): error TS2322/);

    cpSync(join(PACKAGE_ROOT, "examples", "library-run.mjs"), join(project, "library-run.mjs"));
    const printed = execFileSync(process.execPath, ["library-run.mjs", "runs/example"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(printed).toMatch(/^round 0: incumbent [0-9a-f]{12} score /m);
    expect(printed).toMatch(/^round 1: /m);
    expect(printed).toMatch(/^finished: \d+ candidates in .*runs\/example$/m);

    // Data the compiled code reads beside itself ships too: the terminal scenarios' texts, so the installed command
    // regenerates the shipped suite to the byte.
    const regenerated = join(project, "terminal");
    execFileSync(
      process.execPath,
      [
        join(installed, "dist", "cli", "bin.js"),
        "tasks",
        "generate",
        "--suite",
        "terminal",
        "--no-check",
        "--out",
        regenerated,
      ],
      { cwd: project, stdio: "pipe" },
    );
    execFileSync("diff", ["-r", join(installed, "tasks", "terminal"), regenerated], { stdio: "inherit" });
  }, 900_000);
});
