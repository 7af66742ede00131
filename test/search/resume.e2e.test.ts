import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { compiledCli } from "../helpers/compiled-package";
import { expectSameRun, finished, storedRollouts, runSummary as summary } from "../helpers/run-summary";
import { signalAtRollouts, stopped, withSignalPreload } from "../helpers/signal-at-rollouts";
import { retailSubset } from "../helpers/task-subset";

/** The compiled CLI (test/helpers/compiled-package.ts), which this file starts as a child process. */
let cli: string[];
beforeAll(async () => {
  cli = await compiledCli();
}, 300_000);

let work: string;
/** `race`: greedy with acceptance race (proposals stop once their paired difference is decided). */
const configs: Record<"greedy" | "pareto" | "race" | "race-informative" | "early-reject", string> = {
  greedy: "",
  pareto: "",
  race: "",
  "race-informative": "",
  "early-reject": "",
};
/** The race settings: the seeded order; the informative order (stored per round) with successive halving. */
const RACE: Record<string, string> = {
  race: "strategy: greedy\nacceptance: {rule: race, batch: 4, min_tasks: 8, margin: 0.2}\n",
  "race-informative":
    "strategy: greedy\nacceptance: {rule: race, batch: 4, min_tasks: 8, margin: 0.2, order: informative, halving: {keep: 0.5, first: 4}}\n",
  "early-reject": "strategy: greedy\nacceptance: {rule: greater, early_reject: true}\n",
};
/**
 * The CLI as a child, for the runs that must be killed or stopped; with `env` from signalAtRollouts, it signals
 * itself once that many rollouts are stored. Runs that end on their own (the references, the resumes) run the same
 * CLI in-process: a child costs some 2 s CPU of module loading before its first rollout.
 */
function hsearch(args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  const node = env ? withSignalPreload(cli) : cli;
  return spawn(process.execPath, [...node, ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "hsearch-resume-"));
  const tasks = retailSubset({ perFamily: 8, heldoutPerFamily: 3, independent: 4 }).dir;
  for (const strategy of ["greedy", "pareto", "race", "race-informative", "early-reject"] as const) {
    configs[strategy] = join(work, `search-${strategy}.yaml`);
    const setting = RACE[strategy] ?? `strategy: ${strategy}\n`;
    writeFileSync(
      configs[strategy],
      `name: resume\nsuites: [retail]\ntasks: ${tasks}\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 3\nproposals_per_round: 2\ntask_model: sim:default\nseed: 5\nconcurrency: 4\n${setting}`,
    );
  }
});

// Kill points spread over the search: during R0, mid-search, in the last round, and (greedy) in the final evaluation
// (rollouts 337-380 of 380: 92% lands there, as the store commits at most 25 rollouts at a time). Pareto's parent
// draw and front are read back from earlier rounds, so it resumes to the same selection too.
// A race resumes mid-round: its looks are prefixes of one seeded order, read back from the stored rollouts.
// The informative race's order of a round is stored before its first rollout and read back on resume.
// Early rejection's steps are prefixes of one order computed from the incumbent's stored rollouts.
const KILL_POINTS = {
  greedy: [0.1, 0.45, 0.8, 0.92],
  pareto: [0.45, 0.8],
  race: [0.3, 0.6],
  "race-informative": [0.5, 0.7],
  "early-reject": [0.6],
} as const;

for (const strategy of ["greedy", "pareto", "race", "race-informative", "early-reject"] as const)
  describe(`hsearch run --resume after SIGKILL (strategy ${strategy})`, () => {
    const config = () => configs[strategy];
    let reference: ReturnType<typeof summary>;

    beforeAll(async () => {
      const run = await runCli(["run", config(), "--out", join(work, strategy, "clean", "run")], {
        cwd: work,
      });
      expect(run.code, run.stderr).toBe(0);
      reference = summary(join(work, strategy, "clean", "run"));
    }, 600_000);

    for (const fraction of KILL_POINTS[strategy]) {
      it(`${strategy}: ends where an uninterrupted run ends when killed at ${Math.round(fraction * 100)}% of its rollouts`, async () => {
        const runDir = join(work, strategy, `killed-${fraction}`, "run");
        const target = Math.max(1, Math.floor(reference.total * fraction));
        // Killed right after the store commits its `target`th rollout: polling run.db raced a fast run to its end.
        const killed = await finished(hsearch(["run", config(), "--out", runDir], signalAtRollouts(target)));
        expect(killed.signal, killed.stderr).toBe("SIGKILL");
        const partial = summary(runDir);
        expect(partial.state).toBe("running");
        expect(partial.total).toBeGreaterThanOrEqual(target);
        expect(partial.total).toBeLessThan(reference.total);

        const resumed = await runCli(["run", "--resume", runDir], { cwd: work });
        expect(resumed.code, resumed.stderr).toBe(0);
        expectSameRun(runDir, reference);
        // Two runs of a small search, one as a child: minutes at a load of 20 on the shared 2-core machine.
      }, 480_000);
    }
  });

describe("a run in use", () => {
  it("a second process cannot work on a run that is in use", async () => {
    const runDir = join(work, "locked", "run");
    // The first run stops itself (SIGSTOP) once 5 rollouts are stored, so it surely holds the run while the second
    // tries (a small run could otherwise finish first, and resuming a finished run rightly succeeds).
    const child = hsearch(["run", configs.greedy, "--out", runDir], signalAtRollouts(5, "SIGSTOP"));
    const exit = finished(child);
    await stopped(child);
    try {
      // This (the test's) process is the second one: the stopped child holds the run.
      const second = await runCli(["run", "--resume", runDir], { cwd: work });
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/in use by process/);
    } finally {
      child.kill("SIGCONT");
    }
    const first = await exit;
    expect(first.code, first.stderr).toBe(0);
    expect(storedRollouts(runDir)).toBeGreaterThan(5);
  }, 240_000);
});
