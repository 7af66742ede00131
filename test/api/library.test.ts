/**
 * The library's API in-process: a run's events, result and records, export and diff of its candidates, and a run
 * cancelled by its AbortSignal that `resume` finishes.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  diffCandidates,
  exportHarness,
  isHsearchError,
  openRun,
  type RunEvent,
  startRun,
} from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";

const work = mkdtempSync(join(tmpdir(), "hsearch-api-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const config = {
  name: "api",
  suites: ["retail"],
  objective: "joint",
  seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
  rounds: 1,
  proposals_per_round: 1,
  task_model: "sim:default",
  meta_model: "operators",
  judge: "rules",
  acceptance: { rule: "greater" },
  seed: 1,
};

describe("the library API", () => {
  it("runs a search from a config object, reports events in order and reads the run back", async () => {
    const handle = startRun(config, { cwd: work, out: "run-a" });
    const heard: RunEvent["type"][] = [];
    handle.on((event) => heard.push(event.type));
    const iterated: RunEvent["type"][] = [];
    for await (const event of handle) iterated.push(event.type);
    const result = await handle.result;
    expect(iterated).toEqual(heard);
    expect(heard[0]).toBe("started");
    expect(heard.at(-1)).toBe("finished");
    expect(heard.filter((type) => type === "round")).toHaveLength(2);
    expect(result.status.state).toBe("finished");

    const run = openRun(result.runDir);
    try {
      expect(run.run.id).toBe("run-a");
      expect(run.config().rounds).toBe(1);
      expect(run.rounds().map((round) => round.round)).toEqual([0, 1]);
      const seed = await run.candidate("seed");
      const rollouts = run.rollouts(seed.commit, "search");
      expect(rollouts.length).toBeGreaterThan(0);
      const first = rollouts[0];
      if (!first) throw new Error("no rollout");
      expect(run.trajectory(first).task_id).toBe(first.task_id);
      expect(run.usage().length).toBeGreaterThan(0);
    } finally {
      run.close();
    }

    const exported = await exportHarness(result.runDir, "selected", join(work, "exported"));
    expect(existsSync(join(exported.out, "harness.yaml"))).toBe(true);
    const compared = await diffCandidates(result.runDir, "seed", "selected");
    expect(compared.from.parent).toBeNull();
    expect(compared.to.commit).toBe(exported.commit);
  });

  it("stops a run whose signal aborts before any rollout, and resume finishes it", async () => {
    const controller = new AbortController();
    controller.abort();
    const handle = startRun(config, { cwd: work, out: "run-b", signal: controller.signal });
    const error = await handle.result.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(isHsearchError(error, "cancelled")).toBe(true);
    const stopped = openRun(join(work, "run-b"));
    try {
      expect(stopped.run.state).toBe("failed");
      expect(stopped.rollouts((await stopped.candidate("seed")).commit)).toHaveLength(0);
    } finally {
      stopped.close();
    }
    const resumed = await handle.resume().result;
    expect(resumed.status.state).toBe("finished");
    expect(resumed.outcome?.stoppedBy).toBe("rounds");
  });

  it("refuses a config object with a bad field before making a run directory", async () => {
    const handle = startRun({ ...config, rounds: -1 }, { cwd: work, out: "run-c" });
    await expect(handle.result).rejects.toMatchObject({ code: "bad_input", location: { field: "rounds" } });
    expect(existsSync(join(work, "run-c"))).toBe(false);
  });
});
