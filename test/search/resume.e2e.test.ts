import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SOURCE_CLI } from "../helpers/cli";
import { expectSameRun, finished, storedRollouts, runSummary as summary } from "../helpers/run-summary";
import { retailSubset } from "../helpers/task-subset";

let work: string;
const configs: Record<"greedy" | "pareto", string> = { greedy: "", pareto: "" };
function hsearch(args: string[]): ChildProcess {
  return spawn(process.execPath, [...SOURCE_CLI, ...args], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-resume-"));
  const tasks = retailSubset({ perFamily: 8, heldoutPerFamily: 3, independent: 4 }).dir;
  for (const strategy of ["greedy", "pareto"] as const) {
    configs[strategy] = join(work, `search-${strategy}.yaml`);
    writeFileSync(
      configs[strategy],
      `name: resume\nsuites: [retail]\ntasks: ${tasks}\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\nseed: 5\nconcurrency: 4\nstrategy: ${strategy}\n`,
    );
  }
});

// Kill points spread over the search: during R0, mid-search, and in the last rounds (the final evaluation is ~12%
// of the rollouts and over in a blink, too short to land a kill in reliably). Pareto's parent draw and front are
// read back from earlier rounds, so it resumes to the same selection too.
const KILL_POINTS = { greedy: [0.1, 0.45, 0.7, 0.8], pareto: [0.45, 0.8] } as const;

for (const strategy of ["greedy", "pareto"] as const)
  describe(`hsearch run --resume after SIGKILL (strategy ${strategy})`, () => {
    const config = () => configs[strategy];
    let reference: ReturnType<typeof summary>;

    beforeAll(async () => {
      const run = await finished(hsearch(["run", config(), "--out", join(work, strategy, "clean", "run")]));
      expect(run.code, run.stderr).toBe(0);
      reference = summary(join(work, strategy, "clean", "run"));
    });

    for (const fraction of KILL_POINTS[strategy]) {
      it(`ends where an uninterrupted run ends when killed at ${Math.round(fraction * 100)}% of its rollouts`, async () => {
        const runDir = join(work, strategy, `killed-${fraction}`, "run");
        const child = hsearch(["run", config(), "--out", runDir]);
        const exit = finished(child);
        const target = Math.max(1, Math.floor(reference.total * fraction));
        while (child.exitCode === null && storedRollouts(runDir) < target)
          await new Promise((r) => setTimeout(r, 10));
        child.kill("SIGKILL");
        const killed = await exit;
        expect(killed.signal).toBe("SIGKILL");
        const partial = summary(runDir);
        expect(partial.state).toBe("running");
        expect(partial.total).toBeLessThan(reference.total);

        const resumed = await finished(hsearch(["run", "--resume", runDir]));
        expect(resumed.code, resumed.stderr).toBe(0);
        expectSameRun(runDir, reference);
      });
    }
  });

describe("a run in use", () => {
  it("a second process cannot work on a run that is in use", async () => {
    const runDir = join(work, "locked", "run");
    const child = hsearch(["run", configs.greedy, "--out", runDir]);
    const exit = finished(child);
    while (child.exitCode === null && storedRollouts(runDir) < 5) await new Promise((r) => setTimeout(r, 10));
    // Paused, the first run holds the run while the second tries (a small run can otherwise finish first, and
    // resuming a finished run rightly succeeds).
    expect(child.kill("SIGSTOP")).toBe(true);
    try {
      const second = await finished(hsearch(["run", "--resume", runDir]));
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/in use by process/);
    } finally {
      child.kill("SIGCONT");
    }
    expect((await exit).code).toBe(0);
  });
});
