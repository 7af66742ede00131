import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { loadSearchConfig } from "../../src/search";
import { hsearchErrorOf } from "./errors";
import { rolesOn, searchConfig, writeSearchConfig } from "./search-config";
import { retailBlocked, retailFeasible, terminalBlocked, terminalFeasible } from "./task-builders";

const work = mkdtempSync(join(tmpdir(), "hsearch-builders-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the shared search-config builder", () => {
  const config = searchConfig({
    name: "builders",
    seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
    rounds: 2,
    acceptance: { rule: "paired", alpha: 0.1, max_extra_repeats: 0 },
    budget: { max_rollouts: 8 },
  });

  it("writes a config the real loader reads to the same values, as YAML and as JSON", () => {
    const yaml = loadSearchConfig(writeSearchConfig(join(work, "search.yaml"), config));
    const json = loadSearchConfig(writeSearchConfig(join(work, "search.json"), config));
    expect(json).toEqual(yaml);
    expect(yaml).toMatchObject({
      name: "builders",
      suites: ["retail"],
      task_model: "sim:default",
      rounds: 2,
      proposals_per_round: 1,
      acceptance: { rule: "paired", alpha: 0.1 },
      budget: { max_rollouts: 8, max_usd: null },
    });
  });

  it("leaves a bad value for the loader to refuse, naming the field", () => {
    const file = writeSearchConfig(join(work, "bad.yaml"), searchConfig({ rounds: -1 }));
    expect(hsearchErrorOf(() => loadSearchConfig(file))).toMatchObject({
      code: "bad_input",
      location: { file, field: "rounds", line: expect.any(Number) },
    });
  });

  it("names every role's model on one provider", () => {
    expect(rolesOn("openai", { agent: "a", proposer: "p", judge: "j", customer: "c" })).toEqual({
      task_model: "openai:a",
      meta_model: "openai:p",
      judge: "llm:openai:j",
      customer: "llm:openai:c",
    });
  });
});

describe("the shared task builders", () => {
  it("build tasks the schema accepts, each blocked one paired with its feasible source", () => {
    for (const [blocked, feasible] of [
      [retailBlocked(), retailFeasible()],
      [terminalBlocked(), terminalFeasible()],
    ] as const) {
      expect(blocked.source).toBe(feasible.id);
      expect(blocked.family).toBe(blocked.blocker?.label);
      expect(feasible.family).toBeUndefined();
    }
  });

  it("refuse overrides that make an invalid task, naming the field", () => {
    expect(() => retailBlocked({ family: "trap" })).toThrow(/retail-b-1 .*blocker\.label/);
    expect(() => terminalFeasible({ split: "independent", source: "x" })).toThrow(
      /source: independent tasks/,
    );
    expect(() => retailFeasible({ id: "" })).toThrow(/id:/);
  });
});
