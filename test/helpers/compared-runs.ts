import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { runCli } from "./cli";
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

/** Two finished small searches that differ in their objective (`hsearch compare`'s typical use). */
export async function makeComparedRuns(): Promise<ComparedRuns> {
  const work = mkdtempSync(join(tmpdir(), "hsearch-compare-"));
  const { dir: tasks } = retailSubset({ perFamily: 1, heldoutPerFamily: 1, independent: 2 });
  const [a, b] = [join(work, "sa-only"), join(work, "joint")];
  for (const [objective, out] of [
    ["sa-only", a],
    ["joint", b],
  ] as const) {
    const ran = await runCli(["run", config(work, tasks, objective), "--out", out], { cwd: work });
    if (ran.code !== 0) throw new Error(`run ${objective} failed: ${ran.stderr}`);
  }
  return { work, tasks, a, b };
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
