import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "./cli";
import { copyFixture, sharedFixture } from "./fixture-cache";
import { retailSubset } from "./task-subset";

export interface ComparedRuns {
  work: string;
  tasks: string;
  /** Two finished searches of the same tasks: SA-only (A) and joint (B). */
  a: string;
  b: string;
}

/** A small search config: one round of two proposals on a slice of the retail suite, the simulator, seed 1. */
function config(work: string, tasks: string, objective: "sa-only" | "joint"): string {
  const path = join(work, `${objective}.yaml`);
  writeFileSync(
    path,
    [
      `name: small-${objective}`,
      "suites: [retail]",
      `tasks: ${tasks}`,
      `objective: ${objective}`,
      `seed_harness: ${join(PACKAGE_ROOT, "harnesses", "bare")}`,
      "rounds: 1",
      "proposals_per_round: 2",
      "task_model: sim:default",
      "meta_model: operators",
      "seed: 1",
      "concurrency: 4",
    ].join("\n"),
  );
  return path;
}

/**
 * Two finished small searches that differ in their objective (`hsearch compare`'s typical use). Built once per suite
 * run (two files read them) and copied to a new work directory for each caller.
 */
export async function makeComparedRuns(): Promise<ComparedRuns> {
  const { dir: shared } = await sharedFixture(
    "compared-runs",
    { perFamily: 1, heldoutPerFamily: 1, independent: 2 },
    async (dir) => {
      const tasks = retailSubset({
        perFamily: 1,
        heldoutPerFamily: 1,
        independent: 2,
        into: join(dir, "tasks"),
      }).dir;
      for (const objective of ["sa-only", "joint"] as const) {
        const ran = await runCli(["run", config(dir, tasks, objective), "--out", join(dir, objective)], {
          cwd: dir,
        });
        if (ran.code !== 0) throw new Error(`run ${objective} failed: ${ran.stderr}`);
      }
    },
  );
  const work = copyFixture(shared, "hsearch-compare-");
  return { work, tasks: join(work, "tasks"), a: join(work, "sa-only"), b: join(work, "joint") };
}

/** An evaluation of a shipped harness on `tasks` into `out`. */
export async function evaluate(work: string, harness: string, tasks: string, out: string): Promise<void> {
  const ran = await runCli(
    ["eval", "--harness", join(PACKAGE_ROOT, "harnesses", harness), "--tasks", tasks, "--out", out, "--json"],
    { cwd: work },
  );
  if (ran.code !== 0) throw new Error(`eval of ${harness} failed: ${ran.stderr}`);
}

/** The search split of a task directory alone: tasks no final evaluation of a search runs. */
export function searchSplitOnly(work: string, tasks: string): string {
  const dir = join(work, "search-only");
  mkdirSync(dir);
  cpSync(join(tasks, "search"), join(dir, "search"), { recursive: true });
  return dir;
}
