import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pilotTasks, planRun } from "../../src/api/plan";
import { harnessConfigSchema } from "../../src/config/harness-schema";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { planSearch } from "../../src/search/plan/plan";
import { planModelCalls } from "../../src/search/plan/plan-calls";
import { runCli, runCliJson } from "../helpers/cli";

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
    const n = plan.tasksPerUnchangedProposal as number;
    expect(n % 8).toBe(0);
    expect(n).toBeLessThan(128);
    expect(plan.search.expected).toBe((128 + 24 * n) * 2);
  });

  it("greater with early_reject: the bound is greater's; what an unchanged proposal costs only the run learns", () => {
    const plan = planSearch(
      searchConfigSchema.parse({ ...base, acceptance: { rule: "greater", early_reject: true } }),
      counts,
    );
    expect(plan.search).toEqual({ max: 3200, expected: 3200 });
    expect(plan.tasksPerUnchangedProposal).toBeNull();
    expect(planSearch(searchConfigSchema.parse(base), counts).tasksPerUnchangedProposal).toBe(128);
  });

  it("race with halving: tied unchanged proposals are dropped at the rungs; the bound stays", () => {
    const race = { rule: "race", margin: 0.05, batch: 8 };
    const plain = planSearch(searchConfigSchema.parse({ ...base, acceptance: race }), counts);
    const halved = planSearch(
      searchConfigSchema.parse({ ...base, acceptance: { ...race, halving: { keep: 0.5, first: 16 } } }),
      counts,
    );
    expect(halved.search.max).toBe(plain.search.max);
    const n = plain.tasksPerUnchangedProposal as number;
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
    const result = await runCliJson(["run", "--plan", join(PACKAGE_ROOT, "search-configs", "demo.yaml")], {
      cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.rollouts.search.max).toBe(3200);
    expect(result.json.rollouts.search.max + result.json.rollouts.final).toBe(3362);
    expect(existsSync(join(cwd, "runs")) ? readdirSync(join(cwd, "runs")) : []).toEqual([]);
  });

  it("model calls: bounds from the seed harness's step budget, expectations only where the config decides them", () => {
    const config = searchConfigSchema.parse({
      ...base,
      meta_model: "openai:gpt-5",
      judge: "llm:openai:gpt-5",
    });
    const plan = planSearch(config, counts);
    const harness = harnessConfigSchema.parse({
      name: "h",
      agent: { max_steps: 10 },
      protocols: { self_check: { enabled: true, max_steps: 3 }, report: { enabled: true } },
    });
    // Half the search tasks blocked, all retail; the final tasks likewise.
    const mix = {
      search: { total: 128, retail: 128, blocked: 64 },
      final: { total: 81, retail: 81, blocked: 40 },
    };
    const calls = planModelCalls(config, harness, plan, mix, { customer: true, judge: true, proposer: true });
    const rollouts = 3200 + 162;
    // 10 main turns + 3 self-check + 2 report.
    expect(calls.perRollout).toEqual({ agent: 15, customer: 16, judge: 3 });
    expect(calls.agent).toMatchObject({ max: rollouts * 15, expected: null });
    expect(calls.customer).toMatchObject({ max: rollouts * 16, expected: null });
    const blocked = 3200 / 2 + (162 * 40) / 81;
    expect(calls.judge).toMatchObject({ max: blocked * 3, expected: blocked });
    expect(calls.proposer).toMatchObject({ max: 8 * 3, expected: 8 });
    const offline = planModelCalls(searchConfigSchema.parse(base), harness, plan, mix, {
      customer: false,
      judge: false,
      proposer: false,
    });
    expect([offline.customer, offline.judge, offline.proposer]).toEqual([null, null, null]);
    expect(offline.perRollout).toEqual({ agent: 15, customer: 0, judge: 0 });
  });

  it("the pilot's tasks: feasible/blocked pairs of the search split, chosen by the seed", () => {
    const task = (id: string, kind: string, source?: string) =>
      ({ id, kind, split: "search", suite: "retail", ...(source ? { source } : {}) }) as unknown as Task;
    const search = Array.from({ length: 10 }, (_, i) => [
      task(`f${i}`, "feasible"),
      task(`b${i}`, "infeasible", `f${i}`),
    ]).flat();
    const chosen = pilotTasks(search, 4, 1);
    expect(chosen).toHaveLength(4);
    const blocked = chosen.filter((t) => t.kind !== "feasible");
    expect(blocked).toHaveLength(2);
    for (const b of blocked) expect(chosen.map((t) => t.id)).toContain(b.source);
    expect(pilotTasks(search, 4, 1).map((t) => t.id)).toEqual(chosen.map((t) => t.id));
    expect(pilotTasks(search, 4, 2).map((t) => t.id)).not.toEqual(chosen.map((t) => t.id));
    expect(pilotTasks(search, 3, 1)).toHaveLength(3);
  });

  it("hsearch run --plan prints the model calls of the demo (offline: no estimate)", async () => {
    const result = await runCli(["run", "--plan", join(PACKAGE_ROOT, "search-configs", "demo.yaml")], {
      cwd: mkdtempSync(join(tmpdir(), "hsearch-plan-")),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /model calls at most \(bounds, per role[^\n]*\n {2}agent 100,860: 30 turns per rollout from the seed harness \(agent.max_steps 30\)/,
    );
    expect(result.stdout).toMatch(
      /no model call for: the customer \(scripted\), the judge \(rules\), the proposer \(operators\)/,
    );
    expect(result.stdout).toMatch(/every model is offline/);
  });

  it("planRun (the library's run --plan): the same plan as an object; a pilot of offline models is bad input", async () => {
    const demo = join(PACKAGE_ROOT, "search-configs", "demo.yaml");
    const plan = await planRun(demo);
    expect(plan).toMatchObject({ name: "demo", real: false, estimate: null, rule: "greater" });
    expect(plan.rollouts.search.max + plan.rollouts.final).toBe(3362);
    expect(plan.calls.agent.max).toBe(3362 * 30);
    expect([plan.calls.customer, plan.calls.judge, plan.calls.proposer]).toEqual([null, null, null]);
    await expect(planRun(demo, { pilot: 4 })).rejects.toMatchObject({
      code: "bad_input",
      location: { field: "pilot" },
    });
    await expect(planRun(demo, { pilot: 0 })).rejects.toMatchObject({
      code: "bad_input",
      location: { field: "pilot" },
    });
  });
});
