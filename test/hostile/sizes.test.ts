import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { HARNESS_LIMITS, loadHarness } from "../../src/harness/load";
import { runCli } from "../helpers/cli";
import { hsearchErrorOf } from "../helpers/errors";
import { tempDir } from "../store/fixtures";

/** A copy of the bare harness whose system.md is padded to `chars` characters. */
function paddedSeed(work: string, chars: number): string {
  const seed = join(work, "seed");
  cpSync(join(PACKAGE_ROOT, "harnesses", "bare"), seed, { recursive: true });
  const system = "{{policy}}\n{{protocols}}\n{{playbook}}\n";
  writeFileSync(join(seed, "system.md"), `${system}${"x".repeat(chars - system.length)}`);
  return seed;
}

describe("size limits on harness files, configurable per run", () => {
  it("a template over the limit is refused naming the file, its size and the setting", () => {
    const seed = paddedSeed(tempDir(), HARNESS_LIMITS.template_chars + 1);
    const error = hsearchErrorOf(() => loadHarness(seed));
    expect(error.location.file).toBe(join(seed, "system.md"));
    expect(error.message).toBe(
      `${HARNESS_LIMITS.template_chars + 1} characters, more than ${HARNESS_LIMITS.template_chars} (limits.harness_file_chars)`,
    );
    expect(loadHarness(seed, { template_chars: 30_000, total_chars: 100_000 }).system.length).toBeGreaterThan(
      HARNESS_LIMITS.template_chars,
    );
  });

  it("a file far over the total is refused by its size before it is read", () => {
    const seed = paddedSeed(tempDir(), 4 * HARNESS_LIMITS.total_chars + 10);
    const error = hsearchErrorOf(() => loadHarness(seed));
    expect(error.message).toBe(
      `${4 * HARNESS_LIMITS.total_chars + 10} bytes, over the limit of 400000 bytes`,
    );
  });

  it("run applies the config's limits to the seed before the run directory is made", async () => {
    const work = tempDir();
    paddedSeed(work, 1_500);
    writeFileSync(
      join(work, "search.yaml"),
      "name: sized\nsuites: [retail]\nobjective: joint\nseed_harness: seed\nrounds: 1\nproposals_per_round: 1\ntask_model: sim:default\nlimits: {harness_file_chars: 1000}\n",
    );
    const run = await runCli(["run", "search.yaml", "--out", "runs/sized"], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `hsearch: ${join(work, "seed", "system.md")}:4: 1500 characters, more than 1000 (limits.harness_file_chars)`,
    );
    expect(existsSync(join(work, "runs"))).toBe(false);
  });

  it("a limit outside its range is a config error naming the field", async () => {
    const work = tempDir();
    writeFileSync(
      join(work, "search.yaml"),
      "name: sized\nsuites: [retail]\nobjective: joint\nseed_harness: seed\nrounds: 1\nproposals_per_round: 1\ntask_model: sim:default\nlimits:\n  model_reply_chars: 10\n",
    );
    const run = await runCli(["run", "search.yaml", "--out", "runs/sized"], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/search\.yaml:9: field 'limits\.model_reply_chars'/);
  });
});
