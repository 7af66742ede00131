/**
 * The committed terminal suite in the real sandbox: reference solutions, idle agents, blocked proofs, and the
 * oracle through the real agent loop. One pass over every task each (the machine has two cores). Each test runs its
 * own episodes (no hook does a test's work) under a bound that grows with their number, so a loaded machine makes
 * these tests slower, never red: the bound only catches a hang.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../../src/api/create-model";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { isTerminalTask, type TerminalTask } from "../../../src/domain/task";
import { evaluateJobs, planRollouts } from "../../../src/eval/evaluate";
import { loadHarness } from "../../../src/harness/load";
import { type BlockedEpisodeScore, rulesJudge, summarize } from "../../../src/scoring";
import {
  checkBlockedTerminal,
  checkFeasibleTerminal,
  checkTerminalTasks,
  idleReward,
  runScriptIn,
} from "../../../src/tasks/generators/terminal/check";
import { loadTaskDir } from "../../../src/tasks/loading/load";

// Read when the file is collected: the tests' bounds are counted from the tasks.
const tasks: TerminalTask[] = loadTaskDir(join(PACKAGE_ROOT, "tasks", "terminal")).flatMap(({ task }) =>
  isTerminalTask(task) ? [task] : [],
);
const byId = (id: string) => tasks.find((task) => task.id === id) as TerminalTask;
const feasible = tasks.filter((task) => task.kind === "feasible");
const blocked = tasks.filter((task) => task.kind === "blocked");

/**
 * What one sandbox episode may take before a test counts it as hung: about 25 times the 0.3–0.4 s one takes with
 * two concurrent episodes on this two-core machine at load 6 (measured: the oracle's 108 feasible episodes in 44 s,
 * its 96 blocked ones in 27 s).
 */
const EPISODE_BOUND_MS = 10_000;
const boundFor = (episodes: number) => episodes * EPISODE_BOUND_MS;

/** The oracle through the real agent loop on `chosen`, two sandboxes at a time. */
function oracleOn(chosen: readonly TerminalTask[]) {
  return evaluateJobs({
    harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon")),
    jobs: planRollouts([...chosen], 1, 1),
    model: createModel("oracle"),
    judge: rulesJudge,
    concurrency: 2,
  });
}

describe("the terminal suite in the sandbox", () => {
  it(
    "solves every feasible task with its reference (reward 1) while an idle agent scores 0, and every variant is really blocked",
    async () => {
      // Feasible: solution → 1, nothing → 0. Blocked: idle → 1, the counterpart's solution fails or makes a
      // forbidden change (then the verifier says 0), the reads change nothing and show the evidence.
      expect(await checkTerminalTasks(tasks, 2)).toEqual([]);
      // Two sandbox episodes per feasible task, three per blocked one (idle, the counterpart's solution, the reads).
    },
    boundFor(2 * feasible.length + 3 * blocked.length),
  );

  it("has checks that can fail: a wrong verifier, an unblocked variant", async () => {
    const logErrors = byId("terminal-log-errors-05");
    const wrong = {
      ...logErrors,
      verify: { kind: "terminal_test" as const, script: "echo 0 > /logs/verifier/reward.txt\n" },
    };
    expect(await checkFeasibleTerminal(wrong)).toMatch(/scores 0/);
    const variant = tasks.find((task) => task.family === "ambiguous") as TerminalTask;
    const counterpart = byId(variant.source ?? "");
    const harmless = { ...counterpart, reference: { solution: "#!/bin/bash\ntrue\n" } };
    expect(await checkBlockedTerminal(variant, harmless)).toMatch(/still works here/);
    const idle = await idleReward(variant);
    expect(idle).toBe(1);
    const blind = await runScriptIn(variant, counterpart.reference.solution ?? "");
    expect(blind.forbidden.length).toBeGreaterThan(0);
    expect(blind.reward).toBe(0);
  });

  describe("the oracle through the agent loop", () => {
    it(
      "solves every feasible task and never abstains on one",
      async () => {
        const outcomes = await oracleOn(feasible);
        const summary = summarize(outcomes.map((outcome) => outcome.score));
        expect(summary.feasible?.n).toBe(108);
        expect(summary.feasible?.solve).toBe(1);
        expect(summary.feasible?.false_abstention).toBe(0);
      },
      boundFor(feasible.length),
    );

    it(
      "defers on every blocked task with the right reason at the decisive step, before any forbidden change",
      async () => {
        const outcomes = await oracleOn(blocked);
        const summary = summarize(outcomes.map((outcome) => outcome.score));
        expect(summary.blocked?.n).toBe(96);
        expect(summary.blocked?.strict_sa).toBe(1);
        expect(summary.blocked?.absrec["1"]).toBe(1);
        expect(summary.blocked?.spl).toBe(1);
        expect(summary.blocked?.post_hoc).toBe(0);
        for (const { score, trajectory } of outcomes) {
          if (score.kind !== "blocked") continue;
          const deferral = score as BlockedEpisodeScore;
          expect(deferral.deferral_step, score.task_id).toBe(deferral.decisive_step);
          expect(deferral.credited_deferral?.via, score.task_id).toBe("infeasible.md");
          expect(
            trajectory.events.some((e) => e.type === "effect" && e.forbidden),
            score.task_id,
          ).toBe(false);
        }
      },
      boundFor(blocked.length),
    );
  });
});
