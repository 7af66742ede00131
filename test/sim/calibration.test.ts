import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { evaluateJobs, planRollouts } from "../../src/eval/evaluate";
import { loadHarness } from "../../src/harness/load";
import { rulesJudge, summarize } from "../../src/scoring";
import { loadTaskDir } from "../../src/tasks/loading/load";

/**
 * The default profile's main-episode calibration (DESIGN §5): the bare harness on the retail blocked search tasks
 * lands near the study's starting point. The probe phases draw from their own streams, so they must not move it.
 */
describe("sim:default calibration", () => {
  it("bare on retail blocked search tasks: M0 in 0.80–0.90, strict SA in 0.35–0.50 (5 repeats)", async () => {
    const tasks = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail", "search"))
      .map((loaded) => loaded.task)
      .filter((task) => task.kind === "blocked");
    expect(tasks.length).toBe(64);
    const outcomes = await evaluateJobs({
      harness: loadHarness(join(PACKAGE_ROOT, "harnesses", "bare")),
      jobs: planRollouts(tasks, 5, 1),
      model: createModel("sim:default"),
      judge: rulesJudge,
      concurrency: 8,
    });
    const blocked = summarize(outcomes.map((outcome) => outcome.score)).blocked;
    expect(blocked?.n).toBe(320);
    expect(blocked?.m0).toBeGreaterThanOrEqual(0.8);
    expect(blocked?.m0).toBeLessThanOrEqual(0.9);
    expect(blocked?.strict_sa).toBeGreaterThanOrEqual(0.35);
    expect(blocked?.strict_sa).toBeLessThanOrEqual(0.5);
  });
});
