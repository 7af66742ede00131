import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openRunStore } from "../../src/store";
import { runCli } from "../helpers/cli";
import { type SearchConfigFile, searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

let work: string;
let tasks: string;

function writeConfig(name: string, budget: SearchConfigFile["budget"]): string {
  return writeSearchConfig(
    join(work, `${name}.yaml`),
    searchConfig({
      name: "budget",
      tasks,
      rounds: 2,
      proposals_per_round: 2,
      seed: 4,
      concurrency: 4,
      budget,
    }),
  );
}

function inspect(runDir: string) {
  const store = openRunStore(runDir, { readonly: true });
  try {
    return {
      state: store.getRun()?.state,
      error: store.getRun()?.error,
      rollouts: store.countRollouts(),
      hash: store.contentHash(),
      events: store.listEvents().filter((e) => e.kind === "budget_exhausted"),
      selected: store.listRounds().at(-1)?.incumbent_after,
    };
  } finally {
    store.close();
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "hsearch-budget-"));
  tasks = retailSubset({ perFamily: 3, heldoutPerFamily: 1, independent: 2 }).dir;
});

describe("budgets hold", () => {
  it("max_rollouts is never overshot, stops as budget_exhausted, and a resume with more ends like an uninterrupted run", async () => {
    const full = join(work, "full", "run1");
    const big = { max_rollouts: 100000 };
    expect(
      (await runCli(["run", writeConfig("full", big), "--out", full, "--json"], { cwd: work })).code,
    ).toBe(0);
    const reference = inspect(full);
    expect(reference.state).toBe("finished");

    for (const limit of [1, 7, Math.floor(reference.rollouts / 2)]) {
      const runDir = join(work, `limit-${limit}`, "run1");
      const stopped = await runCli(
        ["run", writeConfig(`l${limit}`, { max_rollouts: limit }), "--out", runDir],
        {
          cwd: work,
        },
      );
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toMatch(new RegExp(`budget exhausted: max_rollouts = ${limit} reached`));
      const partial = inspect(runDir);
      expect(partial.state).toBe("budget_exhausted");
      // Rollouts are admitted as they start: none beyond the limit, and every admitted one is stored.
      expect(partial.rollouts).toBe(limit);
      expect(partial.events.at(-1)?.data).toMatchObject({ limit: "max_rollouts", rollouts: limit });
      const status = JSON.parse((await runCli(["status", runDir, "--json"], { cwd: work })).stdout);
      expect(status.state).toBe("budget_exhausted");
      expect(status.error).toBe(`budget exhausted: max_rollouts = ${limit} reached (${limit} rollouts)`);

      // The same budget again stops at once; a larger one continues to the uninterrupted result.
      await runCli(["run", "--resume", runDir], { cwd: work });
      expect(inspect(runDir).rollouts).toBe(limit);
      const resumed = await runCli(["run", "--resume", runDir, "--max-rollouts", "100000"], { cwd: work });
      expect(resumed.code).toBe(0);
      const after = inspect(runDir);
      expect(after.state).toBe("finished");
      expect(after.selected).toBe(reference.selected);
      expect(after.rollouts).toBe(reference.rollouts);
      expect(after.hash).toBe(reference.hash);
    }
  }, 300_000);

  it("budget flags without --resume, and an invalid value, are bad input", async () => {
    const file = writeConfig("flags", { max_rollouts: 5 });
    const fresh = await runCli(["run", file, "--out", join(work, "f", "run1"), "--max-rollouts", "9"], {
      cwd: work,
    });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toMatch(/--max-rollouts raises the budget of a resumed run/);
    const runDir = join(work, "neg", "run1");
    await runCli(["run", file, "--out", runDir], { cwd: work });
    const bad = await runCli(["run", "--resume", runDir, "--max-usd", "-1"], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-usd/);
  });
});
