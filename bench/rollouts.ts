// Retail rollouts per second with the simulated model, including scoring (`npx tsx bench/rollouts.ts`).
import { join } from "node:path";
import { createModel } from "../src/api/create-model";
import { PACKAGE_ROOT } from "../src/core/paths";
import { evaluateJobs, planRollouts } from "../src/eval/evaluate";
import { loadHarness } from "../src/harness/load";
import { rulesJudge } from "../src/scoring";
import { filterTasks, loadTaskDir } from "../src/tasks/loading/load";

const tasks = filterTasks(
  loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail")).map((loaded) => loaded.task),
  { split: "search" },
);
const model = createModel("sim:default");
const rows: string[] = [];
for (const name of ["bare", "abandon", "self-check", "gated"]) {
  const harness = loadHarness(join(PACKAGE_ROOT, "harnesses", name));
  const jobs = planRollouts(tasks, 10, 1);
  await evaluateJobs({ harness, jobs: jobs.slice(0, 64), model, judge: rulesJudge, concurrency: 8 }); // warm-up
  const started = process.hrtime.bigint();
  const outcomes = await evaluateJobs({ harness, jobs, model, judge: rulesJudge, concurrency: 8 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const steps = outcomes.reduce((sum, o) => sum + o.trajectory.steps, 0);
  rows.push(
    `${name.padEnd(12)} ${String(outcomes.length).padStart(6)} rollouts  ${(outcomes.length / seconds).toFixed(0).padStart(6)} rollouts/s  ${(steps / outcomes.length).toFixed(1)} steps each`,
  );
}
console.log("retail rollouts with sim:default (one process, scoring included)");
for (const row of rows) console.log(row);
