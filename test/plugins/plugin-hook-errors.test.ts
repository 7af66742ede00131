/**
 * Plug-in code that throws while a run is under way (a proposer's propose(), a suite's createEnvironment, verify or
 * an environment's method, a metric's value()): the run's error, exit 2, naming the module and the hook, never an
 * internal error; the run directory keeps what was done, and once the module is fixed `hsearch run --resume`
 * finishes the run where an uninterrupted run of the fixed module ends.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRun } from "../../src/api";
import { PACKAGE_ROOT } from "../../src/core/paths";
import { aggregateMetric } from "../../src/scoring/metrics";
import { loadMetricModules, resolveMetricModules } from "../../src/search/config/metric-modules";
import { runCli } from "../helpers/cli";

const work = mkdtempSync(join(tmpdir(), "hsearch-plugin-hooks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const EXAMPLES = join(PACKAGE_ROOT, "examples");

/** The example's source with `from` replaced by `to` (the replacement must happen: the example is what is tested). */
function edited(example: string, from: string, to: string): string {
  const source = readFileSync(join(EXAMPLES, example), "utf8");
  expect(source, `${example} has the text the test edits`).toContain(from);
  return source.replace(from, to);
}

/** A directory with the example suite and proposer (as given) and a config naming them. */
function setUp(name: string, modules: { suite?: string; proposer?: string } = {}): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "my-suite.mjs"), modules.suite ?? readFileSync(join(EXAMPLES, "my-suite.mjs")));
  writeFileSync(
    join(dir, "my-proposer.mjs"),
    modules.proposer ?? readFileSync(join(EXAMPLES, "my-proposer.mjs")),
  );
  writeFileSync(
    join(dir, "search.json"),
    JSON.stringify({
      name: "kv-hooks",
      suites: ["./my-suite.mjs"],
      objective: "joint",
      seed_harness: join(PACKAGE_ROOT, "harnesses", "bare"),
      rounds: 2,
      proposals_per_round: 2,
      task_model: "sim:default",
      meta_model: "./my-proposer.mjs",
      seed: 3,
    }),
  );
  return dir;
}

const run = (dir: string) =>
  runCli(["run", join(dir, "search.json"), "--out", join(dir, "run")], { cwd: dir });
const resume = (dir: string) => runCli(["run", "--resume", join(dir, "run")], { cwd: dir });

/** What must be equal between two runs: each candidate's round, slot, state, score, proposer; selection, held-out. */
function summary(runDir: string) {
  const opened = openRun(runDir);
  try {
    const status = opened.status();
    return {
      state: status.state,
      candidates: opened
        .candidates()
        .map((c) => [c.round, c.proposal, c.state, c.score, c.proposer, c.rationale].join(" | "))
        .sort(),
      selected: status.selected?.score ?? null,
      heldout: status.heldout,
    };
  } finally {
    opened.close();
  }
}

let uninterrupted: ReturnType<typeof summary>;
beforeAll(async () => {
  const dir = setUp("uninterrupted");
  const { code, stderr } = await run(dir);
  expect(code, stderr).toBe(0);
  uninterrupted = summary(join(dir, "run"));
  expect(uninterrupted.state).toBe("finished");
});

describe("plug-in code that throws while running", () => {
  it("a proposer's propose(): exit 2 naming the module and the hook; fixed, the run resumes and finishes", async () => {
    const dir = setUp("proposer", {
      proposer: edited(
        "my-proposer.mjs",
        "propose(input, { count, round, rng }) {",
        'propose(input, { count, round, rng }) {\n    if (round === 2) throw new Error("the cue table is empty");',
      ),
    });
    const failed = await run(dir);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(
      `hsearch: ${join(dir, "search.json")}: field 'meta_model': meta_model: module ${join(dir, "my-proposer.mjs")}: propose() in round 2 threw: the cue table is empty`,
    );
    expect(failed.stderr).not.toContain("internal error");
    expect(failed.stderr).toContain(`continue with: hsearch run --resume ${join(dir, "run")}`);
    // The run directory is intact: failed, with the seed and round 1 kept.
    const kept = summary(join(dir, "run"));
    expect(kept.state).toBe("failed");
    expect(kept.candidates.filter((c) => c.startsWith("1 |"))).toHaveLength(2);

    // Unfixed, a resume meets the same error (and says so the same way).
    const again = await resume(dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("propose() in round 2 threw: the cue table is empty");

    copyFileSync(join(EXAMPLES, "my-proposer.mjs"), join(dir, "my-proposer.mjs"));
    const resumed = await resume(dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `${join(dir, "my-proposer.mjs")} changed since its code stopped the run`,
    );
    expect(summary(join(dir, "run"))).toEqual(uninterrupted);

    // The fixed content is recorded: a later resume holds the run to it as to the modules it began with.
    const opened = openRun(join(dir, "run"));
    try {
      const records = opened.events().filter((event) => event.kind === "plugin_modules");
      expect(records).toHaveLength(2);
      const proposerHash = (index: number) =>
        (records[index]?.data.modules as Array<{ field: string; sha256: string }> | undefined)?.find(
          (module) => module.field === "meta_model",
        )?.sha256;
      expect(proposerHash(1)).toMatch(/^[0-9a-f]{64}$/);
      expect(proposerHash(1)).not.toBe(proposerHash(0));
    } finally {
      opened.close();
    }
  });

  it("a suite's createEnvironment: exit 2 naming the module and the task; fixed, the run resumes and finishes", async () => {
    const original = "createEnvironment: (task, { readOnly }) => new KvEnvironment(task.env, readOnly),";
    const dir = setUp("suite", {
      suite: edited(
        "my-suite.mjs",
        original,
        'createEnvironment: (task, { readOnly }) => { if (task.id === "kv-3") throw new Error("no store for kv-3"); return new KvEnvironment(task.env, readOnly); },',
      ),
    });
    const failed = await run(dir);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(
      `hsearch: ${join(dir, "search.json")}: field 'suites': suites: module ${join(dir, "my-suite.mjs")}: createEnvironment(kv-3) threw: no store for kv-3`,
    );
    expect(failed.stderr).not.toContain("internal error");
    expect(existsSync(join(dir, "run", "run.db"))).toBe(true);
    expect(summary(join(dir, "run")).state).toBe("failed");

    copyFileSync(join(EXAMPLES, "my-suite.mjs"), join(dir, "my-suite.mjs"));
    const resumed = await resume(dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(summary(join(dir, "run"))).toEqual(uninterrupted);
  });

  it("a fix that changes the suite's tasks is refused: the run's tasks stay the ones it began with", async () => {
    const dir = setUp("suite-tasks", {
      suite: edited(
        "my-suite.mjs",
        "verify(task, env, episode) {",
        'verify(task, env, episode) {\n    if (task.id === "kv-2") throw new Error("verifier offline");',
      ),
    });
    const failed = await run(dir);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(
      `suites: module ${join(dir, "my-suite.mjs")}: verify(kv-2) threw: verifier offline`,
    );
    writeFileSync(
      join(dir, "my-suite.mjs"),
      edited(
        "my-suite.mjs",
        "  tasks,\n  createEnvironment",
        "  tasks: tasks.slice(0, -1),\n  createEnvironment",
      ),
    );
    const refused = await resume(dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("its tasks changed since the run began");
    copyFileSync(join(EXAMPLES, "my-suite.mjs"), join(dir, "my-suite.mjs"));
    const resumed = await resume(dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(summary(join(dir, "run"))).toEqual(uninterrupted);
  });

  it("an environment's own method: the method, the tool and the task are named", async () => {
    const dir = setUp("environment", {
      suite: edited(
        "my-suite.mjs",
        "  async call(name, args, ctx) {",
        '  async call(name, args, ctx) {\n    if (name === "set") throw new TypeError("set is not wired");',
      ),
    });
    const failed = await run(dir);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(
      /suites: module .*my-suite\.mjs: call\(set\) of the environment of kv-\S+ threw: set is not wired/,
    );
    expect(failed.stderr).not.toContain("internal error");
  });

  it("a metric's value(): named with its module, the metric and the episode", async () => {
    const dir = join(work, "metric");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "m.mjs"),
      'export default { name: "flaky", label: "flaky", kinds: ["blocked"], reducer: "mean", higherIsBetter: true, value() { throw new Error("no steps today"); } };\n',
    );
    const origin = { file: join(dir, "search.yaml") };
    const [metric] = await loadMetricModules(resolveMetricModules(["./m.mjs"], dir, origin), origin);
    if (!metric) throw new Error("the module gives a metric");
    const episode = {
      task_id: "kv-1-trap",
      kind: "blocked" as const,
      family: "trap" as const,
      repeat: 0,
      score: {} as never,
      end_reason: "agent_stopped" as const,
      steps: 1,
      input_tokens: 0,
      output_tokens: 0,
      usd: 0,
      trajectory: () => {
        throw new Error("not read");
      },
    };
    expect(() => aggregateMetric(metric, [episode])).toThrow(
      `metrics: module ${join(dir, "m.mjs")}: value() of metric 'flaky' on episode kv-1-trap#0 threw: no steps today`,
    );
  });
});
