import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { acquireRunLock } from "../../src/store/run-lock";
import { compiledPackage } from "../helpers/compiled-package";
import { tempDir } from "../store/fixtures";

const CONTENDERS = 12;
const CONTENDER = join(import.meta.dirname, "lock-contender.mjs");
/** The compiled store/run-lock.js (test/helpers/compiled-package.ts): the contenders are plain node processes. */
let runLock: string;
beforeAll(async () => {
  runLock = join((await compiledPackage()).dir, "store", "run-lock.js");
}, 300_000);

function lines(child: ChildProcess): { all: string[]; count: (prefix: string) => number } {
  const all: string[] = [];
  let buffer = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    all.push(...parts);
  });
  return { all, count: (prefix) => all.filter((line) => line.startsWith(prefix)).length };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("the run lock", () => {
  it("is its holder's again when taken twice, and free once released", () => {
    const runDir = tempDir();
    const release = acquireRunLock(runDir);
    expect(() => acquireRunLock(runDir)).not.toThrow(); // the same process again: still its own lock
    release();
    const again = acquireRunLock(runDir);
    again();
  });

  it(`of ${CONTENDERS} processes taking a stale lock at the same moment, exactly one holds it`, async () => {
    for (let trial = 0; trial < 1; trial++) {
      const runDir = tempDir();
      const signals = join(runDir, "signals");
      mkdirSync(signals);
      // A stale lock: held by a process that no longer exists.
      const stale = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import(${JSON.stringify(pathToFileURL(runLock).href)}).then(({ acquireRunLock }) => acquireRunLock(${JSON.stringify(runDir)}))`,
        ],
        { encoding: "utf8" },
      );
      expect(stale.status, stale.stderr).toBe(0);
      const children = Array.from({ length: CONTENDERS }, () =>
        spawn(process.execPath, [CONTENDER, runLock, runDir, signals], {
          stdio: ["ignore", "pipe", "inherit"],
        }),
      );
      // Listen for exits now: a refused contender may exit before all the others have answered.
      const exited = children.map((child) => new Promise((resolve) => child.on("exit", resolve)));
      const outputs = children.map(lines);
      await until(() => outputs.every((out) => out.count("ready") === 1));
      writeFileSync(join(signals, "go"), "");
      await until(() => outputs.every((out) => out.count("held") + out.count("refused") === 1));
      const held = outputs.filter((out) => out.count("held") === 1).length;
      writeFileSync(join(signals, "done"), "");
      await Promise.all(exited);
      expect(held, outputs.map((out) => out.all.join(" | ")).join("\n")).toBe(1);
      expect(outputs.filter((out) => out.all.some((line) => /in use by process/.test(line)))).toHaveLength(
        CONTENDERS - 1,
      );
    }
  }, 240_000);
});
