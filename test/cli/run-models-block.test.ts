import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { retailSubset } from "../helpers/task-subset";

describe("run with a models: block naming the agent", () => {
  it("announces and records the block's model, not the config's task_model", {
    timeout: 120_000,
  }, async () => {
    const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const work = mkdtempSync(join(tmpdir(), "hsearch-models-block-"));
    const config = join(work, "study.yaml");
    writeFileSync(
      config,
      [
        "name: models-block",
        "suites: [retail]",
        `tasks: ${dir}`,
        "objective: joint",
        "seed_harness: harnesses/bare",
        "rounds: 0",
        "proposals_per_round: 1",
        "task_model: sim:default",
        "models: {agent: {spec: oracle}}",
        "heldout: {final: false}",
      ].join("\n"),
    );
    const result = await runCli(["run", config, "--out", join(work, "run")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("model oracle");
    expect(result.stderr).not.toContain("sim:default");
  });
});
