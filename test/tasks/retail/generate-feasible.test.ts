import { describe, expect, it } from "vitest";
import { taskSchema } from "../../../src/domain/task-schema";
import { loadRetailData, replayRetailActions } from "../../../src/envs/retail";
import { checkFeasible } from "../../../src/tasks/generators/retail/check-variants";
import { FEASIBLE_OPS, generateFeasibleTasks } from "../../../src/tasks/generators/retail/generate-feasible";

const data = loadRetailData();
const WRITE_OF: Record<string, string> = {
  cancel: "cancel_pending_order",
  "modify-items": "modify_pending_order_items",
  "modify-address": "modify_pending_order_address",
  "modify-payment": "modify_pending_order_payment",
  exchange: "exchange_delivered_order_items",
  return: "return_delivered_order_items",
  "user-address": "modify_user_address",
};

describe("generateFeasibleTasks", () => {
  const tasks = generateFeasibleTasks(data, { seed: 7, count: 70 });

  it("is deterministic in the seed", () => {
    expect(generateFeasibleTasks(data, { seed: 7, count: 70 })).toEqual(tasks);
    expect(generateFeasibleTasks(data, { seed: 8, count: 70 })).not.toEqual(tasks);
  });

  it("cycles through every op with readable, counted ids", () => {
    expect(tasks.slice(0, FEASIBLE_OPS.length).map((task) => task.id)).toEqual([
      "retail-gen-cancel-0001",
      "retail-gen-modify-items-0001",
      "retail-gen-modify-address-0001",
      "retail-gen-modify-payment-0001",
      "retail-gen-exchange-0001",
      "retail-gen-return-0001",
      "retail-gen-user-address-0001",
    ]);
    expect(tasks.at(-1)?.id).toBe("retail-gen-user-address-0010");
  });

  it("authenticates, reads, then makes the one write the task is about", () => {
    for (const task of tasks) {
      expect(taskSchema.safeParse(task).success, task.id).toBe(true);
      const actions = task.reference.actions;
      expect(["find_user_id_by_email", "find_user_id_by_name_zip"]).toContain(actions[0]?.name);
      const op = /^retail-gen-(.+)-\d{4}$/.exec(task.id)?.[1] ?? "";
      expect(actions.at(-1)?.name).toBe(WRITE_OF[op]);
      expect(actions.slice(1, -1).every((a) => a.name.startsWith("get_"))).toBe(true);
      expect(task.sim?.steps).toEqual(actions);
      expect(task.instruction).toMatch(
        /^Hi, I'm [A-Z][a-z]+ [A-Z][a-z]+, (email \S+@\S+|zip code \d{5})\. I /,
      );
      const orderId = actions.at(-1)?.arguments.order_id;
      if (typeof orderId === "string") expect(task.instruction).toContain(orderId);
    }
  });

  it("never touches the same order twice, nor an excluded user", () => {
    const orders = tasks.flatMap((task) => {
      const id = task.reference.actions.at(-1)?.arguments.order_id;
      return typeof id === "string" ? [id] : [];
    });
    expect(new Set(orders).size).toBe(orders.length);
    const excluded = new Set(Object.keys(data.users).slice(0, 250));
    const restricted = generateFeasibleTasks(data, { seed: 7, count: 21, excludeUsers: excluded });
    for (const task of restricted) {
      const steps = task.reference.actions;
      const write = steps.at(-1);
      const orderId = write?.arguments.order_id;
      const owner = typeof orderId === "string" ? data.orders[orderId]?.user_id : write?.arguments.user_id;
      expect(excluded.has(String(owner))).toBe(false);
    }
  });

  it("every reference replays without an error and scores reward 1", () => {
    for (const task of tasks) {
      const { results } = replayRetailActions(task.reference.actions);
      expect(
        results.filter((result) => !result.ok).map((result) => result.output),
        task.id,
      ).toEqual([]);
      expect(checkFeasible(task), task.id).toBeNull();
    }
  });
});
