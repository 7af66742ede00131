import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { searchConfigSchema } from "../../src/search/config-schema";
import { planSearch } from "../../src/search/plan";
import { runCli } from "../helpers/cli";

const base = {
  name: "plan",
  suites: ["retail"],
  objective: "joint",
  seed_harness: "harnesses/bare",
  rounds: 8,
  proposals_per_round: 3,
  task_model: "sim:default",
};
const counts = { search: 128, heldout: 64, independent: 17 };

describe("the search plan", () => {
  it("greater: every candidate on every search task, plus the final evaluations", () => {
    const plan = planSearch(searchConfigSchema.parse(base), counts);
    expect(plan.search).toEqual({ max: 3200, expected: 3200 });
    expect(plan.final).toBe(2 * (64 + 17));
  });

  it("paired: close calls' extra repeats raise the bound, not the expectation", () => {
    const plan = planSearch(
      searchConfigSchema.parse({ ...base, acceptance: { rule: "paired", max_extra_repeats: 2 } }),
      counts,
    );
    expect(plan.search.expected).toBe(3200);
    expect(plan.search.max).toBe(3200 + 24 * 2 * 128 * 2);
  });

  it("race: the same bound; an unchanged proposal stops where the confidence sequence rejects it", () => {
    const plan = planSearch(
      searchConfigSchema.parse({ ...base, repeats: 2, acceptance: { rule: "race", margin: 0.1, batch: 8 } }),
      counts,
    );
    expect(plan.search.max).toBe(6400);
    expect(plan.tasksPerUnchangedProposal % 8).toBe(0);
    expect(plan.tasksPerUnchangedProposal).toBeLessThan(128);
    expect(plan.search.expected).toBe((128 + 24 * plan.tasksPerUnchangedProposal) * 2);
  });

  it("race with halving: tied unchanged proposals are dropped at the rungs; the bound stays", () => {
    const race = { rule: "race", margin: 0.05, batch: 8 };
    const plain = planSearch(searchConfigSchema.parse({ ...base, acceptance: race }), counts);
    const halved = planSearch(
      searchConfigSchema.parse({ ...base, acceptance: { ...race, halving: { keep: 0.5, first: 16 } } }),
      counts,
    );
    expect(halved.search.max).toBe(plain.search.max);
    const n = plain.tasksPerUnchangedProposal;
    expect(n).toBeGreaterThan(32);
    // Of 3 proposals: one dropped at 16 tasks, one at 32, the last runs until the race rejects it.
    expect(halved.search.expected).toBe(128 + 8 * (16 + 32 + n));
    expect(plain.search.expected).toBe(128 + 8 * 3 * n);
    // Informative order: the same expectation as the seeded order (uniform until candidates disagree).
    const informative = planSearch(
      searchConfigSchema.parse({ ...base, acceptance: { ...race, order: "informative" } }),
      counts,
    );
    expect(informative.search).toEqual(plain.search);
  });

  it("hsearch run --plan prints the demo's rollouts and makes no run", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hsearch-plan-"));
    const result = await runCli(["run", "--plan", join(PACKAGE_ROOT, "search-configs", "demo.yaml")], {
      cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/search rollouts: at most 3200/);
    expect(result.stdout).toMatch(/total rollouts: at most 3362/);
    expect(existsSync(join(cwd, "runs")) ? readdirSync(join(cwd, "runs")) : []).toEqual([]);
  });
});
