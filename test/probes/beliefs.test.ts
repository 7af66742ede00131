import { describe, expect, it } from "vitest";
import { createModel } from "../../src/api/create-model";
import { createTaskEnvironment } from "../../src/envs/suite-env";
import { TaskSetupError } from "../../src/envs/types";
import { simContextOf } from "../../src/harness/sim-context";
import { MockChatModel, textReply, toolCallReply } from "../../src/models/mock";
import type { ChatRequest } from "../../src/models/types";
import { collectBeliefs, compareBeliefs, summariseBeliefs } from "../../src/probes/beliefs";
import { retailPairs, shippedHarness } from "./fixtures";

const tasks = retailPairs(2);
const bootstrap = { seed: 1, resamples: 500 };

describe("belief probe", () => {
  it("oracle: perfectly separated beliefs, AUROC 1 and Brier 0", async () => {
    const rows = await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks,
      model: createModel("oracle"),
      seed: 1,
      concurrency: 4,
    });
    expect(rows.map((row) => row.id)).toEqual(tasks.map((task) => task.id));
    expect(rows.every((row) => row.status === "valid")).toBe(true);
    for (const row of rows) expect(row.p).toBe(row.feasible ? 1 : 0);
    const summary = summariseBeliefs(rows, bootstrap);
    expect(summary).toMatchObject({ n: 12, n_valid: 12, n_invalid: 0 });
    expect(summary.auroc).toMatchObject({ value: 1, ci: [1, 1] });
    expect(summary.brier.value).toBe(0);
    expect(summary.ece10.value).toBe(0);
  });

  it("sim:default: every report valid, read-only (no effect), AUROC well above chance, reproducible", async () => {
    const requests: ChatRequest[] = [];
    const options = {
      harness: shippedHarness("abandon"),
      tasks,
      model: createModel("sim:default"),
      seed: 3,
      concurrency: 4,
      onRequest: (request: ChatRequest) => requests.push(request),
    };
    const rows = await collectBeliefs(options);
    expect(rows.every((row) => row.status === "valid" && row.p !== null && row.p >= 0 && row.p <= 1)).toBe(
      true,
    );
    const summary = summariseBeliefs(rows, bootstrap);
    expect(summary.auroc.value).toBeGreaterThan(0.7);
    const [low, high] = summary.auroc.ci ?? [Number.NaN, Number.NaN];
    expect(low).toBeLessThanOrEqual(summary.auroc.value as number);
    expect(high).toBeGreaterThanOrEqual(summary.auroc.value as number);
    // The belief turn offers only report_belief and tells the simulator which phase it is.
    const beliefTurns = requests.filter((request) => simContextOf(request)?.phase === "belief");
    expect(beliefTurns).toHaveLength(tasks.length);
    expect(beliefTurns.every((r) => r.tools.length === 1 && r.tools[0]?.name === "report_belief")).toBe(true);
    // Same seed, same reports; another seed moves the noise.
    expect(await collectBeliefs({ ...options, onRequest: undefined })).toEqual(rows);
    const other = await collectBeliefs({ ...options, seed: 4, onRequest: undefined });
    expect(other.map((row) => row.p)).not.toEqual(rows.map((row) => row.p));
    expect(summariseBeliefs(rows, bootstrap)).toEqual(summary);
  });

  it("the episode is read-only: a write is refused and changes nothing", async () => {
    const [blocked] = tasks;
    if (!blocked) throw new Error("fixture");
    const model = new MockChatModel([
      toolCallReply([
        { name: "cancel_pending_order", arguments: { order_id: "#W0000000", reason: "no longer needed" } },
      ]),
      textReply("Done."),
      toolCallReply([{ name: "report_belief", arguments: { p_feasible: 0.4, reason: "could not write" } }]),
    ]);
    const [row] = await collectBeliefs({
      harness: shippedHarness("bare"),
      tasks: [blocked],
      model,
      seed: 1,
      concurrency: 1,
    });
    expect(row).toMatchObject({ status: "valid", p: 0.4 });
    const refusal = model.requests[1]?.messages.find((m) => m.role === "tool");
    expect(refusal?.content).toMatch(/read-only episode/);
  });

  it("asks the environment factory for a read-only environment", async () => {
    const asked: boolean[] = [];
    await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks: tasks.slice(0, 2),
      model: createModel("oracle"),
      seed: 1,
      concurrency: 1,
      createEnvironment: (task, options) => {
        asked.push(options.readOnly);
        return createTaskEnvironment(task);
      },
    });
    expect(asked).toEqual([true, true]);
  });

  it("a task whose setup fails is that task's infrastructure error; the others are probed", async () => {
    const chosen = tasks.slice(0, 3);
    const broken = chosen[1]?.id;
    const rows = await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks: chosen,
      model: createModel("oracle"),
      seed: 1,
      concurrency: 1,
      createEnvironment: (task, options) =>
        task.id === broken
          ? Promise.reject(new TaskSetupError("the task's setup script failed (exit status 1): no space"))
          : createTaskEnvironment(task, options),
    });
    expect(rows.map((row) => [row.id, row.status])).toEqual(
      chosen.map((task) => [task.id, task.id === broken ? "infra_error" : "valid"]),
    );
    expect(rows[1]?.problem).toBe(
      "task setup failed: the task's setup script failed (exit status 1): no space",
    );
    expect(summariseBeliefs(rows, bootstrap).n_infra_error).toBe(1);
  });

  it("an invalid or missing report is recorded as invalid and left out of the metrics", async () => {
    const pair = tasks.slice(0, 2);
    let turn = 0;
    const model = new MockChatModel((request) => {
      if (request.tools.some((tool) => tool.name === "report_belief"))
        return turn++ === 0
          ? textReply("Probably 70% feasible.")
          : toolCallReply([{ name: "report_belief", arguments: { p_feasible: 1.7 } }]);
      return textReply("Let me think.");
    });
    const rows = await collectBeliefs({
      harness: shippedHarness("bare"),
      tasks: pair,
      model,
      seed: 1,
      concurrency: 1,
    });
    expect(rows.map((row) => row.status)).toEqual(["invalid", "invalid"]);
    expect(rows.map((row) => row.p)).toEqual([null, null]);
    expect(rows[1]?.problem).toMatch(/got 1.7/);
    const summary = summariseBeliefs(rows, bootstrap);
    expect(summary).toMatchObject({ n: 2, n_valid: 0, n_invalid: 2 });
    expect(summary.auroc).toEqual({ value: null, ci: null, reason: "no valid reports" });
  });

  it("one class only: AUROC is undefined with the reason, Brier still defined", async () => {
    const feasibleOnly = tasks.filter((task) => task.kind === "feasible");
    const rows = await collectBeliefs({
      harness: shippedHarness("abandon"),
      tasks: feasibleOnly,
      model: createModel("sim:default"),
      seed: 1,
      concurrency: 4,
    });
    const summary = summariseBeliefs(rows, bootstrap);
    expect(summary.auroc).toMatchObject({ value: null, ci: null });
    expect(summary.auroc.reason).toMatch(/one class only/);
    expect(typeof summary.brier.value).toBe("number");
  });

  it("compare: paired differences over source pairs; identical harnesses differ by exactly 0", async () => {
    const run = (name: string, model = "sim:default") =>
      collectBeliefs({
        harness: shippedHarness(name),
        tasks,
        model: createModel(model),
        seed: 1,
        concurrency: 4,
      });
    const same = compareBeliefs(tasks, await run("abandon"), await run("bare"), bootstrap);
    expect(same.pairs).toBe(6);
    expect(same.auroc).toMatchObject({ value: 0, ci: [0, 0] });
    const oracle = await run("abandon", "oracle");
    const sim = await run("abandon");
    const better = compareBeliefs(tasks, oracle, sim, bootstrap);
    expect(better.brier.value).toBeLessThan(0);
    expect(better.auroc.value).toBeGreaterThanOrEqual(0);
    expect(() => compareBeliefs(tasks, oracle, sim.slice(1), bootstrap)).toThrow(/same tasks/);
    const orphan = { ...tasks[0], source: undefined } as (typeof tasks)[number];
    expect(() => compareBeliefs([orphan], oracle.slice(0, 1), sim.slice(0, 1), bootstrap)).toThrow(
      /no source/,
    );
  });
});
