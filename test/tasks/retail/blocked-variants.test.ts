import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/paths";
import { createRng } from "../../../src/core/rng";
import { isRetailTask, type RetailTask } from "../../../src/domain/task";
import { loadRetailData, replayRetailActions } from "../../../src/envs/retail";
import { textNamesFamily } from "../../../src/scoring/label-cues";
import { keywordOverlap } from "../../../src/scoring/rules-judge";
import { makeBlockedVariant } from "../../../src/tasks/generators/retail/blocked-variants";
import { checkBlocked, checkFeasible } from "../../../src/tasks/generators/retail/check-variants";
import { generateFeasibleTasks } from "../../../src/tasks/generators/retail/generate-feasible";
import { buildRetailSuite, type RetailSuite } from "../../../src/tasks/generators/retail/suite";
import { loadTaskDir } from "../../../src/tasks/loading/load";

const data = loadRetailData();
const isWrite = (name: string) =>
  /^(cancel_pending_order|modify_|exchange_delivered|return_delivered)/.test(name);

describe("blocked variants of the generated suite", () => {
  let suite: RetailSuite;
  let byId: Map<string, RetailTask>;
  let blocked: RetailTask[];
  beforeAll(() => {
    suite = buildRetailSuite();
    byId = new Map(suite.tasks.map((task) => [task.id, task]));
    blocked = suite.tasks.filter((task) => task.kind === "blocked");
  });

  it("are really blocked, and each counterpart is feasible", () => {
    expect(blocked).toHaveLength(96);
    for (const variant of blocked) {
      const counterpart = byId.get(variant.source ?? "");
      if (counterpart === undefined) throw new Error(`${variant.id} has no counterpart`);
      expect(checkFeasible(counterpart), counterpart.id).toBeNull();
      expect(checkBlocked(variant, counterpart, data, suite.readings.get(variant.id)), variant.id).toBeNull();
    }
  });

  it("every ambiguous variant carries a proof of its conflict, and only those do", () => {
    for (const variant of blocked)
      expect(suite.readings.has(variant.id), variant.id).toBe(variant.family === "ambiguous");
  });

  it("are protected and forbid every write", () => {
    for (const variant of blocked) {
      expect(variant.blocker?.label).toBe(variant.family);
      expect(variant.forbidden).toEqual({ tools: ["*"] });
      expect(variant.reference.communicate).toEqual([]);
      expect(variant.reference.actions.every((a) => !isWrite(a.name))).toBe(true);
      expect(variant.id).toBe(`${variant.source}-${variant.family}`);
    }
  });

  it("have a right reason the rules judge accepts and a wrong one it does not", () => {
    for (const variant of blocked) {
      const { blocker, sim } = variant;
      if (!blocker || !sim?.right_reason || !sim.wrong_reason) throw new Error(`${variant.id} lacks cues`);
      const accepts = (text: string) =>
        keywordOverlap(text, blocker.keywords).grounded && textNamesFamily(text, blocker.label);
      expect(accepts(sim.right_reason), `${variant.id}: ${sim.right_reason}`).toBe(true);
      expect(accepts(sim.wrong_reason), `${variant.id}: ${sim.wrong_reason}`).toBe(false);
    }
  });
});

describe("the committed blocked tasks, checked from their files alone", () => {
  const loaded = loadTaskDir(join(PACKAGE_ROOT, "tasks", "retail")).flatMap(({ task }) =>
    isRetailTask(task) ? [task] : [],
  );
  const byId = new Map(loaded.map((task) => [task.id, task]));
  const blocked = loaded.filter((task) => task.kind === "blocked");

  it("put the decisive step right after the revealing observation (spec evidence: right after authentication)", () => {
    for (const variant of blocked) {
      const { blocker, sim } = variant;
      const oracle = variant.reference.actions;
      if (!blocker || !sim) throw new Error(`${variant.id} lacks blocker or cues`);
      if (blocker.evidence === "spec") {
        // The policy asks for authentication before anything else, so a policy-following agent defers at step 2.
        expect(variant.family).toBe("ambiguous");
        expect([blocker.decisive_step, sim.evidence_after, oracle.length]).toEqual([2, 1, 1]);
        expect(oracle[0]?.name, variant.id).toMatch(/^find_user_id_by_(email|name_zip)$/);
        expect(sim.steps[0], variant.id).toEqual(oracle[0]);
        expect(replayRetailActions(oracle, variant.env).results[0]?.ok, variant.id).toBe(true);
      } else {
        expect(blocker.decisive_step).toBe((sim.evidence_after ?? 0) + 1);
        expect(oracle).toEqual(sim.steps.slice(0, sim.evidence_after));
        expect(oracle.at(-1)?.name).toBe("get_order_details");
      }
    }
  });

  it("show the evidence only in the variant, where the cues say", () => {
    for (const variant of blocked) {
      const counterpart = byId.get(variant.source ?? "") as RetailTask;
      const text = variant.sim?.evidence_text ?? "";
      expect(text.length).toBeGreaterThan(0);
      if (variant.blocker?.evidence === "spec") {
        expect(variant.instruction).toContain(text);
        expect(counterpart.instruction).not.toContain(text);
        continue;
      }
      const oracle = variant.reference.actions;
      const seen = replayRetailActions(oracle, variant.env).results.at(-1)?.output ?? "";
      const before = replayRetailActions(oracle, counterpart.env).results.at(-1)?.output ?? "";
      expect(seen, variant.id).toContain(text);
      expect(before, variant.id).not.toBe(seen);
    }
  });

  it("make the counterpart's first successful write fail (infeasible) or land on another customer's order (trap)", () => {
    for (const variant of blocked.filter((task) => task.family !== "ambiguous")) {
      const counterpart = byId.get(variant.source ?? "") as RetailTask;
      const steps = counterpart.reference.actions;
      const base = replayRetailActions(steps).results;
      const target = steps.findIndex((step, index) => isWrite(step.name) && base[index]?.ok);
      const orderId = steps[target]?.arguments.order_id as string;
      const { env, results } = replayRetailActions(steps, variant.env);
      if (variant.family === "infeasible") {
        expect(results[target]?.output, variant.id).toMatch(/^Error: /);
      } else {
        const customer = data.orders[orderId]?.user_id;
        expect(env.snapshot().orders[orderId]?.user_id, variant.id).not.toBe(customer);
        expect(env.snapshot().users[customer ?? ""]?.orders, variant.id).not.toContain(orderId);
      }
    }
  });
});

describe("makeBlockedVariant", () => {
  const [cancel] = generateFeasibleTasks(data, { seed: 3, count: 1 });
  if (cancel === undefined) throw new Error("no task");
  const rng = () => createRng(1, "test");

  it("counts the decisive step from step 1, one call per step", () => {
    expect(cancel.reference.actions.map((a) => a.name)).toEqual([
      expect.stringMatching(/^find_user_id_by_/),
      "get_order_details",
      "cancel_pending_order",
    ]);
    const infeasible = makeBlockedVariant(cancel, "infeasible", { data, rng: rng() }).task;
    expect(infeasible.sim?.evidence_after).toBe(2);
    expect(infeasible.blocker?.decisive_step).toBe(3);
    const trap = makeBlockedVariant(cancel, "trap", { data, rng: rng() }).task;
    expect(trap.sim?.steps.map((s) => s.name).slice(1)).toEqual([
      "get_user_details",
      "get_order_details",
      "cancel_pending_order",
    ]);
    expect(trap.blocker?.decisive_step).toBe(4);
    const ambiguous = makeBlockedVariant(cancel, "ambiguous", { data, rng: rng() }).task;
    expect(ambiguous.blocker?.decisive_step).toBe(2);
    expect(ambiguous.sim?.evidence_after).toBe(1);
    expect(ambiguous.reference.actions).toEqual(cancel.sim?.steps.slice(0, 1));
    expect(ambiguous.sim?.steps).toEqual(cancel.sim?.steps);
  });

  it("leaves the source untouched and points back at it", () => {
    const before = structuredClone(cancel);
    const variant = makeBlockedVariant(cancel, "trap", { data, rng: rng() }).task;
    expect(cancel).toEqual(before);
    expect(variant.source).toBe(cancel.id);
    expect(variant.split).toBe(cancel.split);
  });

  it("the check fails when a variant is not blocked", () => {
    const variant = makeBlockedVariant(cancel, "infeasible", { data, rng: rng() }).task;
    expect(checkBlocked(variant, cancel, data)).toBeNull();
    expect(checkBlocked({ ...variant, env: {} }, cancel, data)).toMatch(/evidence text|still succeeds/);
    const ambiguous = makeBlockedVariant(cancel, "ambiguous", { data, rng: rng() });
    const write = cancel.reference.actions.slice(-1);
    expect(checkBlocked(ambiguous.task, cancel, data, ambiguous.readings)).toBeNull();
    expect(checkBlocked(ambiguous.task, cancel, data, { mode: "alternatives", a: write, b: write })).toMatch(
      /same database/,
    );
    expect(checkBlocked(ambiguous.task, cancel, data)).toMatch(/no readings/);
  });
});
