import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { HsearchError } from "../../src/core/errors";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { searchConfigJsonSchema } from "../../src/search/config/config-json-schema";
import { loadSearchConfig } from "../../src/search/config/load-config";
import { hsearchErrorOf } from "../helpers/errors";

describe("search configs", () => {
  it("the shipped JSON Schema is the one generated from the zod schema (run `npm run schema` after a change)", () => {
    const shipped = readFileSync(join(PACKAGE_ROOT, "schemas", "search-config.schema.json"), "utf8");
    expect(shipped).toBe(searchConfigJsonSchema());
    const schema = JSON.parse(shipped);
    expect(schema.required).toEqual(
      expect.arrayContaining(["name", "suites", "objective", "seed_harness", "rounds"]),
    );
    expect(schema.properties.objective.enum).toEqual(["sa-only", "joint"]);
  });

  it("every ready config validates", () => {
    const dir = join(PACKAGE_ROOT, "search-configs");
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
    expect(files).toEqual(expect.arrayContaining(["demo.yaml", "retail-sa.yaml", "retail-joint.yaml"]));
    for (const file of files)
      expect(loadSearchConfig(join(dir, file)).name).toBe(file.replace(/\.yaml$/, ""));
    const demo = loadSearchConfig(join(dir, "demo.yaml"));
    expect(demo).toMatchObject({
      suites: ["retail"],
      objective: "joint",
      task_model: "sim:default",
      meta_model: "operators",
      rounds: 8,
      proposals_per_round: 3,
    });
  });

  it("a missing config file is not_found (exit 2)", () => {
    const error = hsearchErrorOf(() => loadSearchConfig(join(PACKAGE_ROOT, "test", "does-not-exist.yaml")));
    expect(error.code).toBe("not_found");
  });
});

describe("a config naming a models file", () => {
  const configText = (models: string, taskModel: boolean) =>
    [
      "name: with-models",
      "suites: [retail]",
      "objective: joint",
      "seed_harness: harnesses/bare",
      "rounds: 1",
      "proposals_per_round: 1",
      ...(taskModel ? ["task_model: sim:default"] : []),
      `models: ${models}`,
      "",
    ].join("\n");
  const setup = (models: string, file?: string, taskModel = true) => {
    const root = mkdtempSync(join(tmpdir(), "hsearch-models-"));
    mkdirSync(join(root, "configs"));
    if (file !== undefined) writeFileSync(join(root, "shared-models.yaml"), file);
    const config = join(root, "configs", "a.yaml");
    writeFileSync(config, configText(models, taskModel));
    return { root, config };
  };
  const errorOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as HsearchError;
    }
    throw new Error("expected an error");
  };

  it("reads the blocks from the file, relative to the config, so several configs share one block", () => {
    const { config } = setup(
      "../shared-models.yaml",
      "agent: {spec: 'openai:gpt-5-mini', reasoning_effort: low}\njudge: {temperature: null}\n",
    );
    expect(loadSearchConfig(config).models).toEqual({
      agent: { spec: "openai:gpt-5-mini", reasoning_effort: "low" },
      judge: { temperature: null },
    });
  });

  it("task_model may be left out when the agent's block names its model, and not otherwise", () => {
    const named = setup("../shared-models.yaml", "agent: {spec: 'openai:gpt-5-mini'}\n", false);
    expect(loadSearchConfig(named.config).task_model).toBe("openai:gpt-5-mini");
    const inline = setup("{agent: {spec: 'anthropic:claude-haiku-4-5'}}", undefined, false);
    expect(loadSearchConfig(inline.config).task_model).toBe("anthropic:claude-haiku-4-5");
    const unnamed = setup("{agent: {reasoning_effort: low}}", undefined, false);
    const error = errorOf(() => loadSearchConfig(unnamed.config));
    expect(error.code).toBe("bad_input");
    expect(error.location).toMatchObject({ file: unnamed.config, field: "task_model" });
    expect(error.message).toContain("models.agent.spec");
  });

  it("a missing file names the config, the field models and its line", () => {
    const { config } = setup("../absent.yaml");
    const error = errorOf(() => loadSearchConfig(config));
    expect(error.code).toBe("bad_input");
    expect(error.location).toEqual({ file: config, field: "models", line: 8 });
    expect(error.message).toContain("absent.yaml");
  });

  it("a bad setting in the file names that file, the field and its line", () => {
    const { root, config } = setup(
      "../shared-models.yaml",
      "agent:\n  spec: openai:gpt-5-mini\n  temprature: 0\n",
    );
    const error = errorOf(() => loadSearchConfig(config));
    expect(error.code).toBe("bad_input");
    expect(error.location).toMatchObject({
      file: join(root, "shared-models.yaml"),
      field: "agent.temprature",
      line: 3,
    });
  });

  it("cache.dir: run and user stay keywords; a directory is made absolute relative to the config", () => {
    const { config, root } = setup("{}");
    writeFileSync(config, `${readFileSync(config, "utf8")}cache: {dir: ../shared-cache}\n`);
    expect(loadSearchConfig(config).cache).toEqual({ dir: join(root, "shared-cache") });
    writeFileSync(config, configText("{}", true).concat("cache: {dir: user}\n"));
    expect(loadSearchConfig(config).cache).toEqual({ dir: "user" });
    writeFileSync(config, configText("{}", true));
    expect(loadSearchConfig(config).cache).toEqual({ dir: "run" });
  });
});

describe("acceptance options (race, early_reject)", () => {
  const write = (body: string) => {
    const file = join(mkdtempSync(join(tmpdir(), "hsearch-race-config-")), "search.yaml");
    writeFileSync(
      file,
      `name: race\nsuites: [retail]\nobjective: joint\nseed_harness: harnesses/bare\nrounds: 2\nproposals_per_round: 2\ntask_model: sim:default\n${body}`,
    );
    return file;
  };

  it("takes its defaults, and is refused under pareto with the field and line", () => {
    expect(loadSearchConfig(write("acceptance: {rule: race}\n")).acceptance).toEqual({
      rule: "race",
      alpha: 0.2,
      margin: 0.1,
      batch: 8,
      min_tasks: 32,
      order: "seeded",
      informative_weight: 4,
    });
    // The options: informative order, halving with its defaults; a bad value names its field.
    expect(
      loadSearchConfig(write("acceptance: {rule: race, order: informative, halving: {}}\n")).acceptance,
    ).toMatchObject({ order: "informative", halving: { keep: 0.5, first: 16 } });
    const bad = write("acceptance: {rule: race, halving: {keep: 1}}\n");
    expect(hsearchErrorOf(() => loadSearchConfig(bad)).location).toMatchObject({
      file: bad,
      field: "acceptance.halving.keep",
    });
    const file = write("strategy: pareto\nacceptance:\n  rule: race\n");
    const error = hsearchErrorOf(() => loadSearchConfig(file));
    expect(error.code).toBe("bad_input");
    expect(error.location).toEqual({ file, field: "acceptance.rule", line: 10 });
    expect(error.message).toContain("strategy greedy");
  });

  it("acceptance greater: early_reject is off unless set, a boolean, and greedy only", () => {
    expect(loadSearchConfig(write("")).acceptance).toEqual({ rule: "greater", early_reject: false });
    expect(loadSearchConfig(write("acceptance: {rule: greater, early_reject: true}\n")).acceptance).toEqual({
      rule: "greater",
      early_reject: true,
    });
    const bad = write("acceptance: {rule: greater, early_reject: sometimes}\n");
    expect(hsearchErrorOf(() => loadSearchConfig(bad)).location).toMatchObject({
      file: bad,
      field: "acceptance.early_reject",
    });
    const file = write("strategy: pareto\nacceptance:\n  rule: greater\n  early_reject: true\n");
    const error = hsearchErrorOf(() => loadSearchConfig(file));
    expect(error.code).toBe("bad_input");
    expect(error.location).toEqual({ file, field: "acceptance.early_reject", line: 11 });
    expect(error.message).toContain("strategy greedy");
  });
});
