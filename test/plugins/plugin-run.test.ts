/**
 * A researcher's own suite and proposer from module paths in a search config (issue 24): the example suite
 * (examples/my-suite.mjs, a toy key-value store) searched with the example proposer (examples/my-proposer.mjs) on the
 * simulator, through selection and held-out evaluation; a cancelled run resumed to the uninterrupted run's result;
 * a resume refused when a recorded module changed or vanished.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isHsearchError, openRun, resumeRun, startRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";

const work = mkdtempSync(join(tmpdir(), "hsearch-plugins-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const EXAMPLES = join(PACKAGE_ROOT, "examples");

/** A config file in `dir` naming the example modules relative to it (copied there, so a test may change them). */
function writeConfig(dir: string, extra: Record<string, unknown> = {}): string {
  copyFileSync(join(EXAMPLES, "my-suite.mjs"), join(dir, "my-suite.mjs"));
  copyFileSync(join(EXAMPLES, "my-proposer.mjs"), join(dir, "my-proposer.mjs"));
  const config = {
    name: "kv-search",
    suites: ["./my-suite.mjs"],
    objective: "joint",
    seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
    rounds: 2,
    proposals_per_round: 2,
    task_model: "sim:default",
    meta_model: "./my-proposer.mjs",
    seed: 3,
    ...extra,
  };
  const file = join(dir, "search.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function fresh(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  return dir;
}

/** What must be equal between two runs of one config and seed: each candidate's name, state, proposer and score. */
function summary(runDir: string) {
  const run = openRun(runDir);
  try {
    const status = run.status();
    return {
      candidates: run
        .candidates()
        .map((c) => [c.round, c.proposal, c.state, c.score, c.proposer, c.rationale].join(" | ")),
      selected: status.selected?.score ?? null,
      heldout: status.heldout,
    };
  } finally {
    run.close();
  }
}

describe("a plug-in suite and proposer from module paths", () => {
  let uninterrupted: ReturnType<typeof summary>;

  it("search the example suite with the example proposer: selection, held-out evaluation, modules recorded", async () => {
    const dir = fresh("full");
    const result = await startRun(writeConfig(dir), { cwd: dir, out: "run" }).result;
    expect(result.status.state).toBe("finished");
    const run = openRun(result.runDir);
    try {
      const seed = await run.candidate("seed");
      const search = run.rollouts(seed.commit, "search");
      // 6 feasible and 6 blocked search tasks of the plug-in suite, all run through the episode engine and scored.
      expect(search).toHaveLength(12);
      const trajectory = run.trajectory(search[0] as (typeof search)[number]);
      expect(trajectory.suite).toBe("kv");
      const proposals = run.candidates().filter((c) => c.round > 0);
      expect(proposals.length).toBeGreaterThan(0);
      expect(new Set(proposals.map((c) => c.proposer))).toEqual(new Set(["module:cue-rules"]));
      // The proposer read the digest: it switched the abandon protocol on for the bare seed.
      expect(proposals.map((c) => c.rationale)).toContain(
        "Tell the agent how to defer: blocked tasks fail and the abandon protocol is off.",
      );
      const selected = await run.candidate("selected");
      // The module's edits were admitted, evaluated and one accepted: the selection beats the bare seed.
      expect(selected.score ?? 0).toBeGreaterThan(seed.score ?? 1);
      // Held-out tasks are evaluated after the search only, on the selected harness, and never as search rollouts.
      const heldout = run.rollouts(selected.commit, "heldout");
      expect(heldout.map((r) => r.task_id).sort()).toEqual(
        ["kv-7", "kv-7-infeasible", "kv-8", "kv-8-ambiguous", "kv-9", "kv-9-trap"].sort(),
      );
      expect(search.some((r) => r.task_id.startsWith("kv-7"))).toBe(false);
      expect(run.rollouts(selected.commit, "independent").map((r) => r.task_id)).toEqual(
        expect.arrayContaining(["kv-ind-1", "kv-ind-2"]),
      );
      // The run records each module's path and content hash, for the resume to check.
      const recorded = run.events().find((event) => event.kind === "plugin_modules");
      expect(recorded?.data.modules).toEqual([
        {
          field: "suites",
          path: join(dir, "my-suite.mjs"),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          suite: "kv",
          tasks: expect.arrayContaining(["kv-1", "kv-1-infeasible", "kv-9-trap", "kv-ind-2"]),
        },
        {
          field: "meta_model",
          path: join(dir, "my-proposer.mjs"),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ]);
      // Protected fields never reach the agent: no rollout's messages show a reference's expected store.
      for (const rollout of search) {
        const text = JSON.stringify(run.trajectory(rollout).events.filter((e) => e.type === "message"));
        expect(text).not.toContain("expect");
      }
    } finally {
      run.close();
    }
    // The status tables group the plug-in's tasks under its own name.
    const groups = result.status.suites.flatMap((comparison) => comparison.bySuite.map((row) => row.group));
    expect(new Set(groups)).toEqual(new Set(["kv"]));
    uninterrupted = summary(result.runDir);
    expect(uninterrupted.selected).not.toBeNull();
  });

  it("resumes a cancelled run to the uninterrupted run's result, importing its modules again", async () => {
    const dir = fresh("resumed");
    const controller = new AbortController();
    const handle = startRun(writeConfig(dir), { cwd: dir, out: "run", signal: controller.signal });
    handle.on((event) => {
      if (event.type === "round" && event.round === 1) controller.abort();
    });
    const stopped = await handle.result.then(
      () => null,
      (error: unknown) => error,
    );
    expect(isHsearchError(stopped, "cancelled")).toBe(true);
    const resumed = await resumeRun(join(dir, "run"), { cwd: dir }).result;
    expect(resumed.status.state).toBe("finished");
    expect(summary(resumed.runDir)).toEqual(uninterrupted);
  });

  it("refuses to resume when a recorded module changed or vanished, naming the module", async () => {
    const dir = fresh("changed");
    const controller = new AbortController();
    controller.abort();
    const config = writeConfig(dir);
    const handle = startRun(config, { cwd: dir, out: "run", signal: controller.signal });
    await handle.result.catch(() => null);
    const suite = join(dir, "my-suite.mjs");
    writeFileSync(suite, `// edited\n${readFileSync(suite, "utf8")}`);
    const changed = resumeRun(join(dir, "run"), { cwd: dir }).result;
    await expect(changed).rejects.toMatchObject({
      code: "bad_input",
      location: { file: config, field: "suites" },
    });
    await expect(changed).rejects.toThrow(`suites: module ${suite}: changed since the run began`);
    rmSync(join(dir, "my-proposer.mjs"));
    copyFileSync(join(EXAMPLES, "my-suite.mjs"), suite);
    const gone = resumeRun(join(dir, "run"), { cwd: dir }).result;
    await expect(gone).rejects.toMatchObject({ code: "bad_input", location: { field: "meta_model" } });
    await expect(gone).rejects.toThrow(`meta_model: module ${join(dir, "my-proposer.mjs")}: is gone`);
  });
});
