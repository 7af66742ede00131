import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { searchConfigJsonSchema } from "../../src/search/config-json-schema";
import { loadSearchConfig } from "../../src/search/load-config";

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
    const dir = join(PACKAGE_ROOT, "test");
    try {
      loadSearchConfig(join(dir, "does-not-exist.yaml"));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HsearchError);
      expect((error as HsearchError).code).toBe("not_found");
    }
  });
});
