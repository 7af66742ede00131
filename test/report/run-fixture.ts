import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunStatus } from "../../src/store/run-status";
import { runCli } from "../helpers/cli";
import { copyFixture, sharedFixture } from "../helpers/fixture-cache";
import { retailSubset } from "../helpers/task-subset";

/** A config value that must come out of every page escaped. */
export const HOSTILE_DESCRIPTION = "check <script>alert('config')</script> & <b>bold</b>";

/**
 * A small real run made through the CLI: 12 search tasks, rounds 2 × 2 proposals, seed 1 (which accepts a proposal
 * in both rounds, so there are diffs to show). Built once per suite run (five files read it) and copied to a new
 * work directory for each caller: `work` holds search.yaml and runs/run1.
 */
export async function makeRun(): Promise<{ work: string; runDir: string; status: RunStatus }> {
  const { dir: shared } = await sharedFixture(
    "report-run",
    { perFamily: 2, rounds: 2, seed: 1 },
    async (dir) => {
      const tasks = retailSubset({ perFamily: 2, into: join(dir, "tasks") }).dir;
      const config = join(dir, "search.yaml");
      writeFileSync(
        config,
        [
          "name: report-test",
          `description: ${JSON.stringify(HOSTILE_DESCRIPTION)}`,
          "suites: [retail]",
          `tasks: ${tasks}`,
          "objective: joint",
          "seed_harness: harnesses/bare",
          "rounds: 2",
          "proposals_per_round: 2",
          "task_model: sim:default",
          "seed: 1",
        ].join("\n"),
      );
      const result = await runCli(["run", config, "--out", join(dir, "runs", "run1"), "--json"], {
        cwd: dir,
      });
      if (result.code !== 0) throw new Error(`hsearch run failed (${result.code}): ${result.stderr}`);
      writeFileSync(join(dir, "status.json"), result.stdout);
    },
  );
  const work = copyFixture(shared, "hsearch-report-");
  const status = JSON.parse(readFileSync(join(shared, "status.json"), "utf8")) as RunStatus;
  return { work, runDir: join(work, "runs", "run1"), status };
}

/**
 * A small mixed run (retail and terminal) through the CLI: 1 blocked task per family and suite with their feasible
 * counterparts, rounds 2 × 2 proposals, then the held-out and independent evaluation of the selected harness.
 */
export async function makeMixedRun(
  options: { rounds?: number; out?: string } = {},
): Promise<{ work: string; runDir: string; config: string }> {
  const tasks = retailSubset({
    perFamily: 1,
    heldoutPerFamily: 1,
    independent: 1,
    suites: ["retail", "terminal"],
  }).dir;
  const work = mkdtempSync(join(tmpdir(), "hsearch-mixed-"));
  const config = join(work, "search.yaml");
  writeFileSync(
    config,
    [
      "name: mixed-review",
      "suites: [retail, terminal]",
      `tasks: ${tasks}`,
      "objective: joint",
      "seed_harness: harnesses/bare",
      `rounds: ${options.rounds ?? 2}`,
      "proposals_per_round: 2",
      "task_model: sim:default",
      "concurrency: 2",
      "seed: 1",
    ].join("\n"),
  );
  const runDir = join(work, "runs", options.out ?? "mixed");
  return { work, runDir, config };
}
