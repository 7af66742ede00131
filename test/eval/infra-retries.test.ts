/**
 * Which infrastructure errors an evaluation runs again: a provider's outage may pass by the next pass, a task whose
 * setup failed or timed out would only fail (or take its whole limit) again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { TerminalTask } from "../../src/domain/task";
import { createTaskEnvironment } from "../../src/envs/suite-env";
import { DEFAULT_INFRA_RETRY_PASSES, evaluateJobs, planRollouts } from "../../src/eval/evaluate";
import { loadHarness } from "../../src/harness/load";
import { runRollout, TASK_SETUP_FAILED } from "../../src/harness/rollout";
import type { Trajectory } from "../../src/harness/trajectory";
import { rulesJudge } from "../../src/scoring";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { runJobs } from "../../src/search/loop/candidate-rollouts";
import type { SearchDeps } from "../../src/search/loop/search-deps";
import { openRunStore } from "../../src/store";
import { loadTaskDir } from "../../src/tasks/loading/load";

const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon"));
const model = createModel("oracle");
let solvable: TerminalTask;
let hangs: TerminalTask;

beforeAll(() => {
  const tasks = loadTaskDir(join(PACKAGE_ROOT, "tasks", "terminal")).flatMap(({ task }) =>
    task.suite === "terminal" ? [task] : [],
  );
  solvable = tasks.find((task) => task.id === "terminal-log-errors-05") as TerminalTask;
  // A setup that never ends, under a limit of one second.
  hangs = {
    ...solvable,
    id: "terminal-setup-never-ends",
    env: { ...solvable.env, setup: "echo preparing; sleep 1000", timeouts: { setup_sec: 1 } },
  };
});

/** An episode that ended in an infrastructure error of `errorClass` before its first step. */
function infraEnded(
  request: { task: TerminalTask; seed: number; repeat: number },
  errorClass: string,
): Trajectory {
  return {
    task_id: request.task.id,
    suite: "terminal",
    kind: request.task.kind,
    model: model.id,
    harness: harness.hash,
    seed: request.seed,
    repeat: request.repeat,
    steps: 0,
    events: [],
    end: { reason: "infra_error", step: 0, error: `${errorClass} error`, error_class: errorClass },
    reward: null,
    usage: { input_tokens: 0, output_tokens: 0, usd: 0, model_calls: 0 },
  };
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("infrastructure errors run again, or not", () => {
  it("a setup that times out is the task's infrastructure error at once, started once, and the other task is scored", async () => {
    const starts = new Map<string, number>();
    const reported: string[] = [];
    const outcomes = await evaluateJobs({
      harness,
      jobs: planRollouts([hangs, solvable], 1, 1),
      model,
      judge: rulesJudge,
      concurrency: 2,
      // The default executor, counting the environments (each runs the task's setup) it makes.
      execute: (request) =>
        runRollout({
          ...request,
          model,
          createEnvironment: (task, options) => {
            starts.set(task.id, (starts.get(task.id) ?? 0) + 1);
            return createTaskEnvironment(task, options);
          },
        }),
      onRollout: (job) => {
        reported.push(job.task.id);
      },
    });
    expect(starts.get(hangs.id)).toBe(1);
    expect(starts.get(solvable.id)).toBe(1);
    expect(reported.sort()).toEqual([solvable.id, hangs.id].sort());
    const [hung, solved] = outcomes;
    expect(hung?.score).toMatchObject({ kind: "infra_error", error_class: "task_setup" });
    expect(hung?.trajectory.end.error).toMatch(
      new RegExp(
        `^${TASK_SETUP_FAILED}: the task's setup script failed \\(timed out after 1 s.*\\): .*preparing`,
        "s",
      ),
    );
    expect(solved?.score.kind).toBe("feasible");
    expect(solved?.trajectory.reward).toBe(1);
  });

  it("a provider's outage is run again on each retry pass", async () => {
    let runs = 0;
    const outcomes = await evaluateJobs({
      harness,
      jobs: planRollouts([solvable], 1, 1),
      model,
      judge: rulesJudge,
      concurrency: 1,
      execute: async (request) => {
        runs += 1;
        return infraEnded({ ...request, task: request.task as TerminalTask }, "server");
      },
    });
    expect(runs).toBe(1 + DEFAULT_INFRA_RETRY_PASSES);
    expect(outcomes[0]?.score).toMatchObject({ kind: "infra_error", error_class: "server" });
  });

  it("a search keeps a task's failed setup for the run and runs a provider's outage again on the next request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hsearch-infra-retries-"));
    temps.push(dir);
    const store = openRunStore(dir);
    const runs = new Map<string, number>();
    const deps = {
      config: searchConfigSchema.parse({
        name: "retries",
        suites: ["terminal"],
        objective: "joint",
        seed_harness: "harnesses/abandon",
        rounds: 0,
        proposals_per_round: 1,
        task_model: "oracle",
        concurrency: 1,
        max_infra_error_rate: 1,
      }),
      store,
      model,
      judge: rulesJudge,
      executor: async (request) => {
        runs.set(request.task.id, (runs.get(request.task.id) ?? 0) + 1);
        const errorClass = request.task.id === hangs.id ? "task_setup" : "server";
        return infraEnded({ ...request, task: request.task as TerminalTask }, errorClass);
      },
    } as Partial<SearchDeps> as SearchDeps;
    const commit = "c".repeat(40);
    store.addCandidate({
      commit,
      round: 0,
      proposal: 0,
      parent: null,
      branch: "seed",
      proposer: "seed",
      rationale: "seed",
      tree_hash: "t".repeat(40),
    });
    const tasks = [hangs, solvable].map((task) => ({ ...task, split: "search" as const }));
    for (const label of ["round 1", "round 2"]) await runJobs(deps, harness, commit, "search", tasks, label);
    expect(runs.get(hangs.id)).toBe(1);
    expect(runs.get(solvable.id)).toBe(2 * (1 + DEFAULT_INFRA_RETRY_PASSES));
    store.close();
  });
});
