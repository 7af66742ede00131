import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { searchConfig, writeSearchConfig } from "../helpers/search-config";
import { retailSubset } from "../helpers/task-subset";

describe("run with a models: block naming the agent", () => {
  it("announces and records the block's model, not the config's task_model", {
    timeout: 120_000,
  }, async () => {
    const { dir } = retailSubset({ perFamily: 1, heldoutPerFamily: 0, independent: 0 });
    const work = mkdtempSync(join(tmpdir(), "hsearch-models-block-"));
    const config = writeSearchConfig(
      join(work, "study.yaml"),
      searchConfig({
        name: "models-block",
        tasks: dir,
        rounds: 0,
        models: { agent: { spec: "oracle" } },
        heldout: { final: false },
      }),
    );
    const result = await runCli(["run", config, "--out", join(work, "run")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("model oracle");
    expect(result.stderr).not.toContain("sim:default");
  });
});
