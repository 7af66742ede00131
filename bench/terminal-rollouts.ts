// Terminal rollouts per second with the simulated model, scoring included (`npx tsx bench/terminal-rollouts.ts`).
// Every rollout makes a sandboxed workspace, runs setup, the agent's commands and the verifier for real, so the
// figure is bound by process start-up in the sandbox; it is measured at a few concurrencies (the machine may have
// few cores).
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { createModel } from "../src/api/create-model";
import { PACKAGE_ROOT } from "../src/core/paths";
import { evaluateJobs, planRollouts } from "../src/eval/evaluate";
import { loadHarness } from "../src/harness/load";
import { rulesJudge } from "../src/scoring";
import { filterTasks, loadTaskDir } from "../src/tasks/loading/load";

const tasks = filterTasks(
  loadTaskDir(join(PACKAGE_ROOT, "tasks", "terminal")).map((loaded) => loaded.task),
  { split: "search" },
);
const model = createModel("sim:default");
const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", "abandon"));
const jobs = planRollouts(tasks, 2, 1);
await evaluateJobs({ harness, jobs: jobs.slice(0, 8), model, judge: rulesJudge, concurrency: 2 }); // warm-up
console.log(
  `terminal rollouts with sim:default, harness abandon, ${jobs.length} rollouts over ${tasks.length} search tasks (${availableParallelism()} cores)`,
);
for (const concurrency of [1, 2, 4, 8]) {
  const started = process.hrtime.bigint();
  const outcomes = await evaluateJobs({ harness, jobs, model, judge: rulesJudge, concurrency });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const steps = outcomes.reduce((sum, o) => sum + o.trajectory.steps, 0);
  console.log(
    `concurrency ${String(concurrency).padStart(2)}  ${(outcomes.length / seconds).toFixed(1).padStart(6)} rollouts/s  ${((1000 * seconds) / outcomes.length).toFixed(0).padStart(5)} ms each  ${(steps / outcomes.length).toFixed(1)} steps each`,
  );
}
