import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { PACKAGE_ROOT } from "../../src/core/paths";
import type { Task } from "../../src/domain/task";
import type { ChatModel } from "../../src/models/types";
import { rulesJudge } from "../../src/scoring";
import { searchConfigSchema } from "../../src/search/config/config-schema";
import { runSearch } from "../../src/search/loop/run-search";
import { retailSubset } from "../helpers/task-subset";
import { storeForRun } from "../store/fixtures";

/**
 * The simulated model with a little latency, counting the calls in flight (one per running rollout). In each phase
 * named in `beyond`, calls are held until more than that many are in flight (one candidate's rollouts), or 10 s
 * have passed: then a run that does evaluate candidates side by side surely shows it, however the machine schedules
 * the git reads before each candidate's rollouts (without the hold, one candidate could finish before the next had
 * started, on a loaded machine), while a run that evaluates them one at a time still shows one candidate's worth.
 */
function slowCounting(inner: ChatModel, beyond: Record<string, number>) {
  const stats = { inFlight: 0, max: 0, phaseMax: new Map<string, number>(), phase: "" };
  const release = new Map<string, () => void>();
  const holds = new Map<string, Promise<void>>();
  for (const phase of Object.keys(beyond))
    holds.set(phase, new Promise<void>((resolve) => release.set(phase, resolve)));
  const model: ChatModel = {
    id: inner.id,
    provider: inner.provider,
    async generate(request, options) {
      stats.inFlight++;
      stats.max = Math.max(stats.max, stats.inFlight);
      stats.phaseMax.set(stats.phase, Math.max(stats.phaseMax.get(stats.phase) ?? 0, stats.inFlight));
      try {
        const hold = holds.get(stats.phase);
        if (hold && stats.inFlight > (beyond[stats.phase] ?? 0)) {
          release.get(stats.phase)?.();
          holds.delete(stats.phase);
        } else if (hold) {
          await Promise.race([hold, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
        }
        await new Promise((resolve) => setTimeout(resolve, 3));
        return await inner.generate(request, options);
      } finally {
        stats.inFlight--;
      }
    },
  };
  return { model, stats };
}

describe("one set of rollout slots per run", () => {
  it("evaluates a round's proposals and the final evaluations together, never beyond `concurrency`", async () => {
    const { tasks } = retailSubset({ perFamily: 2, heldoutPerFamily: 2, independent: 4 });
    const split = (s: Task["split"]) => tasks.filter((t) => t.split === s);
    const concurrency = 40;
    const config = searchConfigSchema.parse({
      name: "slots",
      suites: ["retail"],
      objective: "joint",
      seed_harness: "harnesses/bare",
      rounds: 2,
      proposals_per_round: 3,
      task_model: "sim:default",
      seed: 2,
      concurrency,
    });
    const { runDir, store } = storeForRun("r", config);
    const { model, stats } = slowCounting(createModel("sim:default"), {
      rounds: split("search").length,
      final: split("heldout").length,
    });
    await runSearch({
      config,
      runId: "r",
      runDir,
      store,
      seedHarnessDir: join(PACKAGE_ROOT, "harnesses", "bare"),
      tasks: {
        search: split("search"),
        heldout: () => split("heldout"),
        independent: () => split("independent"),
      },
      model,
      metaModel: null,
      judge: rulesJudge,
      events: {
        phase: (message) => {
          stats.phase = message.startsWith("final") ? "final" : "rounds";
        },
      },
    });
    const evaluatedInARound = store.listCandidates().filter((c) => c.round === 1 && c.score !== null).length;
    expect(evaluatedInARound).toBeGreaterThan(1);
    // One candidate has split("search").length rollouts: more in flight means proposals ran side by side.
    expect(stats.phaseMax.get("rounds")).toBeGreaterThan(split("search").length);
    // The largest final evaluation alone is the held-out split of one harness.
    expect(stats.phaseMax.get("final")).toBeGreaterThan(split("heldout").length);
    expect(stats.max).toBeLessThanOrEqual(concurrency);
    store.close();
  }, 120_000);
});
