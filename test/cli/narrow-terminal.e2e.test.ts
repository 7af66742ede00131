/**
 * The real CLI in a terminal of 80 columns (a tmux pane; Debian's `tmux`, which `.ci/run` installs): `run` (its
 * progress and final tables), `status`, `diff` and `compare` of a small run print no line wider than the pane — checked on
 * the pane's own record, where a line the terminal had to wrap is joined back (`capture-pane -J`). Piped, the same
 * commands keep their full width.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { retailSubset } from "../helpers/task-subset";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

const COLUMNS = 80;
const SOCKET = `hsearch-test-${process.pid}`;
const EXIT = "__hsearch_exit=";

let work: string;
let config: string;
let runDir: string;

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", SOCKET, "-f", join(work, "tmux.conf"), ...args], {
    encoding: "utf8",
    stdio: "pipe",
  });
}

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * Runs the CLI in a fresh pane of COLUMNS columns until it exits; returns its exit status and every line the pane
 * showed, history included, wrapped lines joined.
 */
async function inPane(name: string, args: string[]): Promise<{ status: number; lines: string[] }> {
  const command = ["node", ...cli, ...args].map(quote).join(" ");
  // The shell says the exit status: tmux's own (#{pane_dead_status}) stays empty when its server was started
  // from the test runner's process, which it then never reaps.
  tmux(
    "new-session",
    "-d",
    "-s",
    name,
    "-x",
    String(COLUMNS),
    "-y",
    "40",
    "-c",
    PACKAGE_ROOT,
    `${command}; echo "${EXIT}$?"`,
  );
  // However slow the machine, the command ends (the test's own timeout bounds a hang).
  while (tmux("display-message", "-p", "-t", name, "#{pane_dead}").trim() !== "1") await sleep(200);
  const captured = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", name).split("\n");
  tmux("kill-session", "-t", name);
  const exit = captured.find((line) => line.startsWith(EXIT));
  const lines = captured.filter((line) => !line.startsWith(EXIT) && !line.startsWith("Pane is dead"));
  return { status: exit === undefined ? Number.NaN : Number(exit.slice(EXIT.length)), lines };
}

const tooWide = (lines: readonly string[]) => lines.filter((line) => [...line.trimEnd()].length > COLUMNS);

beforeAll(() => {
  try {
    execFileSync("tmux", ["-V"]);
  } catch {
    throw new Error("this test needs tmux: apt-get install tmux (.ci/run installs it)");
  }
  work = mkdtempSync(join(tmpdir(), "hsearch-narrow-"));
  writeFileSync(join(work, "tmux.conf"), "set -g history-limit 100000\nset -g remain-on-exit on\n");
  const { dir } = retailSubset({ perFamily: 2, heldoutPerFamily: 1, independent: 2 });
  config = join(work, "small.yaml");
  // The demo's config on a slice of its tasks: operators' long rationales, held-out and independent tables.
  writeFileSync(
    config,
    [
      "name: small-demo",
      "suites: [retail]",
      `tasks: ${dir}`,
      "objective: joint",
      `seed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}`,
      "rounds: 2",
      "proposals_per_round: 3",
      "task_model: sim:default",
      "meta_model: operators",
      "seed: 1",
      "concurrency: 4",
    ].join("\n"),
  );
  runDir = join(work, "run");
});

afterAll(() => {
  try {
    tmux("kill-server");
  } catch {
    // no server left: every session was killed
  }
});

describe(`a terminal of ${COLUMNS} columns`, () => {
  it("run, status, diff and compare print no line wider than the terminal; piped, they print in full", async () => {
    const ran = await inPane("run", ["run", config, "--out", runDir]);
    expect(ran.status, ran.lines.join("\n")).toBe(0);
    // The run printed its progress and its final tables (seed against the selected harness on each split).
    expect(ran.lines.some((line) => line.startsWith("[") || line.includes("round 2/2"))).toBe(true);
    expect(ran.lines.some((line) => line.startsWith("harness "))).toBe(true);
    expect(tooWide(ran.lines)).toEqual([]);

    const status = await inPane("status", ["status", runDir]);
    expect(status.status).toBe(0);
    expect(status.lines.some((line) => line.startsWith("round "))).toBe(true);
    expect(status.lines.some((line) => line.startsWith("held-out: "))).toBe(true);
    expect(tooWide(status.lines)).toEqual([]);

    const diff = await inPane("diff", ["diff", runDir]);
    expect(diff.status).toBe(0);
    expect(diff.lines.some((line) => line.startsWith("diff --git"))).toBe(true);
    expect(tooWide(diff.lines)).toEqual([]);

    // The run's selection against its seed: the paired tables, the spending and the harness diff.
    const compare = await inPane("compare", ["compare", runDir, runDir, "--candidate-b", "seed"]);
    expect(compare.status, compare.lines.join("\n")).toBe(0);
    expect(compare.lines.some((line) => line.startsWith("held-out: "))).toBe(true);
    expect(compare.lines.some((line) => line.startsWith("diff --git"))).toBe(true);
    expect(tooWide(compare.lines)).toEqual([]);

    // Piped (no terminal width), the same commands print their tables and lines in full.
    for (const args of [
      ["status", runDir],
      ["diff", runDir],
      ["compare", runDir, runDir, "--candidate-b", "seed"],
    ]) {
      const piped = await runCli(args);
      expect(piped.code).toBe(0);
      expect(tooWide(piped.stdout.split("\n")).length, args[0]).toBeGreaterThan(0);
    }
  }, 600_000);
});
