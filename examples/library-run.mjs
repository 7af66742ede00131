// hsearch as a library: a one-round search on the offline simulator, its rounds printed as they finish, then the
// run read back. Run it from a project that depends on hsearch: `node library-run.mjs [run directory]`.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { openRun, startRun } from "hsearch";

const packageRoot = dirname(createRequire(import.meta.url).resolve("hsearch/package.json"));
const handle = startRun(
  {
    name: "library-example",
    suites: ["retail"],
    objective: "joint",
    seed_harness: join(packageRoot, "harnesses", "bare"),
    rounds: 1,
    proposals_per_round: 1,
    task_model: "sim:default",
    meta_model: "operators",
    seed: 1,
  },
  { out: process.argv[2] ?? "runs/library-example" },
);
for await (const event of handle)
  if (event.type === "round")
    console.log(`round ${event.round}: incumbent ${event.incumbent.slice(0, 12)} score ${event.score.toFixed(4)}`);
const { runDir, status } = await handle.result;
const run = openRun(runDir);
try {
  console.log(`${status.state}: ${run.candidates().length} candidates in ${runDir}`);
} finally {
  run.close();
}
