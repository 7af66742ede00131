/**
 * `hsearch study` killed with SIGKILL at seeded points, then `--resume`d each time: the study ends with the same
 * report, file for file (a content hash of the report directory), as the same study run without a stop. The study
 * has its CONVOLVE search too (`search.convolve`), so a kill may land in it and its playbook is rebuilt on resume.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRng } from "../../src/core/rng";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { finished } from "../helpers/run-summary";
import { signalAtRollouts, withSignalPreload } from "../helpers/signal-at-rollouts";
import { retailSubset } from "../helpers/task-subset";

/** The seed the kill points are drawn from: change it and the test kills elsewhere, as deterministically. */
const KILL_SEED = 40;
const KILLS = 3;

let cli: string[];
let work: string;
let file: string;

beforeAll(async () => {
  cli = await compiledCli();
  work = mkdtempSync(join(tmpdir(), "hsearch-study-resume-"));
  const { dir: tasks } = retailSubset({
    perFamily: 1,
    heldoutPerFamily: 1,
    independent: 2,
    into: join(work, "tasks"),
  });
  file = join(work, "study.yaml");
  writeFileSync(
    file,
    `name: resume
seed: 5
concurrency: 4
benchmarks:
  - suite: retail
    tasks: ${tasks}
search: {rounds: 2, proposals_per_round: 2, convolve: true}
independent_reruns: 2
beliefs: {resamples: 200}
challenge: {replicates: 2}
`,
  );
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** sha256 over every file of the report directory, by its path there, in path order. */
function reportDirHash(reportDir: string): { hash: string; files: string[] } {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(reportDir, path));
    }
  };
  walk(reportDir);
  files.sort();
  const hash = createHash("sha256");
  for (const path of files)
    hash
      .update(`${path}\0`)
      .update(readFileSync(join(reportDir, path)))
      .update("\0");
  return { hash: hash.digest("hex"), files };
}

/** Rollouts and probe episodes stored in every step directory of a study (what the kill preload counts). */
function storedEpisodes(studyDir: string): number {
  let total = 0;
  for (const benchmark of readdirSync(studyDir)) {
    const dir = join(studyDir, benchmark);
    if (!statSync(dir).isDirectory() || benchmark === "report") continue;
    for (const step of readdirSync(dir)) {
      if (!existsSync(join(dir, step, "run.db"))) continue;
      const store = openRunStore(join(dir, step), { readonly: true });
      try {
        total += store.countRollouts() + store.listProbeEpisodes().length;
      } finally {
        store.close();
      }
    }
  }
  return total;
}

/** The compiled CLI as a child that kills itself once `after` more rollouts or probe episodes are stored. */
function killedStudy(args: string[], after: number): ChildProcess {
  return spawn(process.execPath, [...withSignalPreload(cli), ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...signalAtRollouts(after) },
  });
}

describe("hsearch study --resume after SIGKILL", () => {
  it("ends with the report an uninterrupted study writes, killed at seeded points", async () => {
    const clean = join(work, "clean");
    const run = await runCli(["study", file, "--out", clean, "--json"], { cwd: work });
    expect(run.code, run.stderr).toBe(0);
    const reference = reportDirHash(join(clean, "report"));
    expect(JSON.parse(run.stdout).hash).toMatch(/^[0-9a-f]{64}$/);
    // Progress in a log (no terminal): each finished step with the study's share done and, once measured, time left.
    const done = run.stderr.split("\n").filter((line) => line.startsWith("  done: "));
    // The protocol's 17 steps, and the CONVOLVE search with its held-out evaluation.
    expect(done).toHaveLength(19);
    for (const line of done) expect(line).toMatch(/^ {2}done: retail\/\S+ \(.+\) · \d+\.\d % of the study/);
    expect(done.some((line) => / · \d+ (min \d+ )?s left$/.test(line))).toBe(true);
    expect(done.at(-1)).toContain("· 100.0 % of the study");
    const total = storedEpisodes(clean);
    expect(total).toBeGreaterThan(KILLS * 2);

    // Seeded kill points over the whole study: distinct stored counts in [1, total), in order.
    const rng = createRng(KILL_SEED, "study-kill-points");
    const points = new Set<number>();
    while (points.size < KILLS) points.add(1 + rng.int(total - 1));
    const kills = [...points].sort((a, b) => a - b);

    const dir = join(work, "killed");
    let killed = 0;
    for (const point of kills) {
      const stored = existsSync(dir) ? storedEpisodes(dir) : 0;
      // A commit stores several at once, so a kill may overshoot the next point: that point is then passed.
      if (stored >= point) continue;
      const args = killed === 0 ? ["study", file, "--out", dir] : ["study", "--resume", dir];
      const child = await finished(killedStudy(args, point - stored));
      expect(child.signal, child.stderr).toBe("SIGKILL");
      killed += 1;
      // Not asserted: the stored count reaching the point. A resume drops what a killed probe or half-made step
      // had stored and runs it again, so the process's inserts can exceed what the directory keeps.
      expect(existsSync(join(dir, "report", "index.html"))).toBe(false);
    }
    expect(killed).toBeGreaterThanOrEqual(2);

    const resumed = await runCli(["study", "--resume", dir, "--json"], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = reportDirHash(join(dir, "report"));
    expect(after.files).toEqual(reference.files);
    expect(after.hash).toBe(reference.hash);
    expect(JSON.parse(resumed.stdout).hash).toBe(JSON.parse(run.stdout).hash);
    // Nothing stored twice: the resumed study holds what the uninterrupted one does.
    expect(storedEpisodes(dir)).toBe(total);
  }, 900_000);
});
