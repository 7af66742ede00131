/**
 * Each extension point takes a new implementation as one module and one registry line: an acceptance rule, a
 * proposer and a provider, each from its own file in fixtures/, registered here (the line a built-in would add to
 * its list: acceptance/index.ts, proposers/index.ts, models/providers.ts), then a search run with each.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HsearchError, isHsearchError, openRun, planRun, startRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { PROVIDERS, registerProvider } from "../../src/models/providers";
import { ACCEPTANCE_RULES } from "../../src/search/acceptance";
import { registerAcceptanceRule, registerProposer } from "../../src/search/extend";
import { PROPOSERS } from "../../src/search/proposers";
import { retailSubset } from "../helpers/task-subset";
import { atLeastRule } from "./fixtures/at-least-rule";
import { noteProposer } from "./fixtures/note-proposer";
import { replayProvider, replayRequests } from "./fixtures/replay-provider";

const work = mkdtempSync(join(tmpdir(), "hsearch-extend-"));
const removals: Array<() => void> = [];
const names = () => ({
  rules: ACCEPTANCE_RULES.map((rule) => rule.schema.shape.rule.value),
  proposers: PROPOSERS.map((proposer) => proposer.name),
  providers: PROVIDERS.map((provider) => provider.name),
});
const before = names();

beforeAll(() => {
  removals.push(
    registerAcceptanceRule(atLeastRule),
    registerProposer(noteProposer),
    registerProvider(replayProvider),
  );
});
afterAll(() => {
  // The test process is shared with other files: leave the registries as they were.
  for (const remove of removals.reverse()) remove();
  expect(names()).toEqual(before);
  rmSync(work, { recursive: true, force: true });
});

function config(overrides: Record<string, unknown>) {
  const { dir } = retailSubset({
    perFamily: 1,
    heldoutPerFamily: 1,
    independent: 1,
    into: join(work, "tasks"),
  });
  return {
    name: "extend",
    suites: ["retail"],
    tasks: dir,
    objective: "joint",
    seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
    rounds: 1,
    proposals_per_round: 2,
    task_model: "sim:default",
    meta_model: "operators",
    acceptance: { rule: "greater" },
    heldout: { final: false },
    seed: 1,
    ...overrides,
  };
}

/** The config as a file, for what reads one (`run --plan`). */
function configFile(name: string, overrides: Record<string, unknown>): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, JSON.stringify(config(overrides)));
  return path;
}

describe("one new file and one registry line per extension point", () => {
  it("runs a search with the new acceptance rule, deciding every round by it", async () => {
    const plan = await planRun(configFile("rule", { acceptance: { rule: "at_least", margin: 1 } }));
    expect(plan.rule).toBe("at_least");
    // The rule's own plan: the seed and two proposals, each on every search task.
    expect(plan.rollouts.search.max).toBe(3 * plan.tasks.search);
    const result = await startRun(config({ acceptance: { rule: "at_least", margin: 1 } }), {
      cwd: work,
      out: "rule",
    }).result;
    const run = openRun(result.runDir);
    try {
      const proposals = run.candidates({ round: 1 }).filter((candidate) => candidate.verdict !== null);
      expect(proposals.length).toBeGreaterThan(0);
      // margin 1 admits any score: the best proposal is accepted whatever it scored.
      const round = run.rounds().find((record) => record.round === 1);
      expect(round?.accepted_commit).not.toBeNull();
      expect(proposals.map((candidate) => candidate.commit)).toContain(round?.accepted_commit);
      expect(JSON.stringify(round?.decision)).toContain("at_least: ");
    } finally {
      run.close();
    }
  });

  it("checks the new rule's fields like a listed rule's, naming the field", async () => {
    const file = configFile("bad-rule", { acceptance: { rule: "at_least", margin: 2 } });
    const error = await startRun(file, { cwd: work, out: "bad-rule" }).result.catch(
      (caught: unknown) => caught,
    );
    expect(isHsearchError(error, "bad_input")).toBe(true);
    expect((error as HsearchError).describe()).toMatch(/bad-rule\.json:1: field 'acceptance\.margin'/);
  });

  it("runs a search with the new proposer: its edits are the candidates, named by it", async () => {
    const result = await startRun(config({ meta_model: "note" }), { cwd: work, out: "proposer" }).result;
    const run = openRun(result.runDir);
    try {
      const proposals = run.candidates({ round: 1 });
      expect(proposals.map((candidate) => candidate.rationale)).toEqual(["note 1.1", "note 1.2"]);
      expect(new Set(proposals.map((candidate) => candidate.proposer))).toEqual(new Set(["note"]));
    } finally {
      run.close();
    }
  });

  it("runs a search on the new provider, through the same settings and usage meter as any provider", async () => {
    replayRequests.length = 0;
    const plan = await planRun(configFile("provider", { task_model: "replay:default" }));
    expect([plan.models.agent, plan.real]).toEqual(["replay:default", false]);
    const result = await startRun(config({ task_model: "replay:default" }), { cwd: work, out: "provider" })
      .result;
    const run = openRun(result.runDir);
    try {
      expect(replayRequests.length).toBeGreaterThan(0);
      // The provider's defaults reached its client through the settings layer.
      expect(new Set(replayRequests.map((request) => request.top_p))).toEqual(new Set([0.9]));
      const agent = run.usage().find((row) => row.role === "agent");
      expect(agent?.model).toBe("replay:default");
      expect(agent?.calls).toBe(replayRequests.length);
    } finally {
      run.close();
    }
  });
});
