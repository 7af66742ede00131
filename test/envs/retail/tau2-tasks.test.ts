import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RetailReference, ToolCallSpec } from "../../../src/domain/task";
import { createRetailEnv, replayRetailActions, retailDataFile, verifyRetail } from "../../../src/envs/retail";

interface Tau2Task {
  id: string;
  evaluation_criteria: {
    actions: Array<{ name: string; arguments: Record<string, unknown> }>;
    communicate_info: string[];
  };
}

const tasks = JSON.parse(readFileSync(retailDataFile("tasks.json"), "utf8")) as Tau2Task[];

function reference(task: Tau2Task): RetailReference {
  return {
    actions: task.evaluation_criteria.actions.map((action) => ({
      name: action.name,
      arguments: action.arguments,
    })),
    communicate: task.evaluation_criteria.communicate_info,
  };
}

/**
 * τ²'s gold trajectories contain calls that fail by design (a guessed id, a refused refund method, a gift card that
 * cannot pay); they change nothing. These are all of them.
 */
const EXPECTED_FAILURES: Record<string, string[]> = {
  "2": ["Error: Product not found"],
  "3": ["Error: Product not found"],
  "4": ["Error: Product not found"],
  "13": ["Error: Payment method should be the original payment method"],
  "21": ["Error: Product not found", "Error: Product not found", "Error: Product not found"],
  "35": ["Error: User not found"],
  "37": ["Error: User not found"],
  "46": ["Error: Order not found", "Error: Order not found"],
  "47": ["Error: Order not found", "Error: Order not found"],
  "54": ["Error: User not found"],
  "67": ["Error: User not found", "Error: User not found"],
  "105": ["Error: Insufficient gift card balance to pay for the price difference"],
};

describe("the 74 τ² retail tasks", () => {
  it("are all here", () => {
    expect(tasks).toHaveLength(74);
  });

  it.each(tasks.map((task) => [task.id, task] as const))(
    "task %s replays and scores 1 with its communicate strings",
    (id, task) => {
      const ref = reference(task);
      const { env, results } = replayRetailActions(ref.actions);
      expect(results.filter((result) => !result.ok).map((result) => result.output)).toEqual(
        EXPECTED_FAILURES[id] ?? [],
      );
      const messages = ref.communicate.map((info) => `Sure, the figure is ${info}, as requested.`);
      const verdict = verifyRetail({ reference: ref, env, agentMessages: messages, completed: true });
      expect(verdict).toEqual({ reward: 1, dbMatch: true, communicateMatch: true, missing: [] });
    },
  );

  it("scores an agent that made only the reference writes (reads skipped) as 1", () => {
    for (const task of tasks) {
      const ref = reference(task);
      const agent = createRetailEnv();
      for (const action of ref.actions.filter((a) => agent.writeTools().has(a.name))) {
        agent.callSync(action.name, action.arguments, { step: 1, author: "agent" });
      }
      expect(
        verifyRetail({ reference: ref, env: agent, agentMessages: ref.communicate, completed: true }).reward,
      ).toBe(1);
    }
  });

  it("scores a wrong write 0", () => {
    const task = tasks.find((t) => t.id === "0") as Tau2Task;
    const ref = reference(task);
    const exchange = ref.actions.at(-1) as ToolCallSpec;
    expect(exchange.name).toBe("exchange_delivered_order_items");
    const agent = createRetailEnv();
    // The other non-clicky keyboard, not the one the reference picks.
    const wrong = { ...exchange.arguments, new_item_ids: ["9570044148", "7747408585"] };
    expect(agent.callSync(exchange.name, wrong, { step: 1, author: "agent" }).ok).toBe(true);
    expect(verifyRetail({ reference: ref, env: agent, agentMessages: [], completed: true })).toEqual({
      reward: 0,
      dbMatch: false,
      communicateMatch: true,
      missing: [],
    });
  });

  it("scores 0 when the agent writes nothing on a task that needs a write, or writes on one that needs none", () => {
    const needsWrite = reference(tasks.find((t) => t.id === "0") as Tau2Task);
    expect(
      verifyRetail({ reference: needsWrite, env: createRetailEnv(), agentMessages: [], completed: true })
        .reward,
    ).toBe(0);

    const noWrite = tasks.find(
      (t) => !t.evaluation_criteria.actions.some((a) => createRetailEnv().writeTools().has(a.name)),
    );
    expect(noWrite).toBeDefined();
    const agent = createRetailEnv();
    agent.callSync(
      "cancel_pending_order",
      { order_id: "#W4923227", reason: "no longer needed" },
      { step: 1, author: "agent" },
    );
    const verdict = verifyRetail({
      reference: reference(noWrite as Tau2Task),
      env: agent,
      agentMessages: (noWrite as Tau2Task).evaluation_criteria.communicate_info,
      completed: true,
    });
    expect(verdict.reward).toBe(0);
    expect(verdict.dbMatch).toBe(false);
  });

  it("scores 0 when a communicate string is missing, comparing lower-case without commas", () => {
    const task = tasks.find((t) => t.id === "43") as Tau2Task;
    const ref = reference(task);
    expect(ref.communicate).toContain("943 Maple Drive");
    const { env } = replayRetailActions(ref.actions);
    const said = ref.communicate.filter((info) => info !== "Chicago");
    const missing = verifyRetail({ reference: ref, env, agentMessages: said, completed: true });
    expect(missing).toEqual({ reward: 0, dbMatch: true, communicateMatch: false, missing: ["Chicago"] });

    // Case and commas do not matter: "943 MAPLE, DRIVE" counts for "943 Maple Drive".
    const shouted = ref.communicate
      .filter((info) => info !== "943 Maple Drive")
      .map((info) => `NOTE: ${info.toUpperCase()}.`);
    shouted.push("THE ADDRESS IS 943 MAPLE, DRIVE");
    expect(verifyRetail({ reference: ref, env, agentMessages: shouted, completed: true }).reward).toBe(1);
  });

  it("scores 0 when the episode did not complete, whatever the state", () => {
    const ref = reference(tasks.find((t) => t.id === "0") as Tau2Task);
    const { env } = replayRetailActions(ref.actions);
    expect(verifyRetail({ reference: ref, env, agentMessages: [], completed: false })).toEqual({
      reward: 0,
      dbMatch: true,
      communicateMatch: true,
      missing: [],
    });
  });

  it("replays a reference on the task's overlay", () => {
    const spec = { overlay: [{ path: ["orders", "#W2378156", "status"], value: "processed" }] };
    const ref = reference(tasks.find((t) => t.id === "0") as Tau2Task);
    const { env, results } = replayRetailActions(ref.actions, spec);
    expect(results.at(-1)?.output).toBe("Error: Non-delivered order cannot be exchanged");
    // On that initial state the reference changes nothing, and an agent that changes nothing matches it.
    expect(verifyRetail({ reference: ref, spec, env, agentMessages: [], completed: true }).reward).toBe(1);
    expect(
      verifyRetail({ reference: ref, spec, env: createRetailEnv(), agentMessages: [], completed: true })
        .dbMatch,
    ).toBe(false);
  });
});
