import { describe, expect, it } from "vitest";
import { isHsearchError } from "../../../src/core/errors";
import {
  createRetailEnv,
  loadRetailData,
  retailDbHash,
  retailPolicy,
  retailToolSpecs,
} from "../../../src/envs/retail";
import { call, expectRefused, FIX, fresh, order, user } from "./helpers";

const WRITE_TOOLS = [
  "cancel_pending_order",
  "exchange_delivered_order_items",
  "modify_pending_order_address",
  "modify_pending_order_items",
  "modify_pending_order_payment",
  "modify_user_address",
  "return_delivered_order_items",
];

describe("tools", () => {
  it("offers the 16 τ² tools as strict JSON-schema specs", () => {
    const specs = fresh().tools();
    expect(specs).toHaveLength(16);
    expect(specs.map((spec) => spec.name)).toContain("list_all_product_types");
    for (const spec of specs) {
      expect(spec.description.length).toBeGreaterThan(20);
      expect(spec.parameters).toMatchObject({ type: "object", additionalProperties: false });
      const { properties, required } = spec.parameters as {
        properties: Record<string, unknown>;
        required: string[];
      };
      expect(Object.keys(properties).sort()).toEqual([...required].sort());
    }
    const modify = specs.find((spec) => spec.name === "modify_pending_order_items");
    expect(modify?.parameters).toMatchObject({
      properties: { item_ids: { type: "array", items: { type: "string" } }, order_id: { type: "string" } },
      required: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    });
  });

  it("hands out specs no caller can edit for another rollout", () => {
    const first = retailToolSpecs();
    const spec = first[0] as unknown as { description: string; parameters: { required: string[] } };
    expect(spec.parameters.required.length).toBeGreaterThan(0);
    expect(() => {
      spec.description = "edited";
    }).toThrow(TypeError);
    expect(() => spec.parameters.required.push("extra")).toThrow(TypeError);
    first.pop();
    expect(retailToolSpecs()[0]?.description).not.toBe("edited");
    expect(retailToolSpecs()).toHaveLength(16);
  });

  it("names the 7 write tools", () => {
    expect([...fresh().writeTools()].sort()).toEqual(WRITE_TOOLS);
  });

  it("answers an unknown tool or bad arguments with an Error observation and changes nothing", () => {
    const env = fresh();
    expectRefused(env, "delete_everything", {}, "Tool 'delete_everything' not found.");
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingCard },
      "missing required argument 'reason' for cancel_pending_order",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingCard, reason: "no longer needed", force: true },
      "unexpected argument(s) for cancel_pending_order: 'force'",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: 42, reason: "no longer needed" },
      "argument 'order_id' of cancel_pending_order must be a string, got number 42",
    );
    expectRefused(
      env,
      "return_delivered_order_items",
      { order_id: FIX.delivered, item_ids: "5222576926", payment_method_id: "credit_card_8041020" },
      "argument 'item_ids' of return_delivered_order_items must be a list of strings, got string \"5222576926\"",
    );
    expectRefused(
      env,
      "return_delivered_order_items",
      { order_id: FIX.delivered, item_ids: [5222576926], payment_method_id: "credit_card_8041020" },
      "argument 'item_ids' of return_delivered_order_items must be a list of strings, got a list",
    );
    expectRefused(
      env,
      "get_order_details",
      "#W4923227",
      'arguments of get_order_details must be a JSON object, got string "#W4923227"',
    );
    expectRefused(
      env,
      "list_all_product_types",
      null,
      "arguments of list_all_product_types must be a JSON object, got null",
    );
    expect(order(env, FIX.pendingCard).status).toBe("pending");
    expect(env.effects().filter((effect) => effect.ok)).toHaveLength(1); // the get_order_details just above
  });
});

describe("effects", () => {
  it("logs every call with author and step, and lists successful writes of agent and harness in order", async () => {
    const env = fresh();
    await env.call("get_user_details", { user_id: FIX.pendingCardUser }, { step: 1, author: "agent" });
    await env.call(
      "cancel_pending_order",
      { order_id: FIX.processed, reason: "no longer needed" },
      { step: 2, author: "agent" },
    );
    await env.call(
      "modify_pending_order_address",
      {
        order_id: FIX.pendingCard,
        address1: "a",
        address2: "",
        city: "c",
        state: "s",
        country: "USA",
        zip: "1",
      },
      { step: 3, author: "harness" },
    );
    await env.call(
      "cancel_pending_order",
      { order_id: FIX.pendingCard, reason: "no longer needed" },
      { step: 4, author: "agent" },
    );
    expect(
      env.effects().map((effect) => [effect.step, effect.author, effect.tool, effect.ok, effect.wrote]),
    ).toEqual([
      [1, "agent", "get_user_details", true, false],
      [2, "agent", "cancel_pending_order", false, false],
      [3, "harness", "modify_pending_order_address", true, true],
      [4, "agent", "cancel_pending_order", true, true],
    ]);
    expect(env.successfulWrites().map((write) => write.name)).toEqual([
      "modify_pending_order_address",
      "cancel_pending_order",
    ]);
    expect(Object.isFrozen(env.effects()[0])).toBe(true);
  });

  it("reports the successful calls the task forbids, without refusing them", () => {
    const all = createRetailEnv({}, { forbidden: { tools: ["*"] } });
    call(all, "get_order_details", { order_id: FIX.pendingCard });
    call(all, "cancel_pending_order", { order_id: FIX.processed, reason: "no longer needed" });
    expect(
      call(all, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "no longer needed" }).ok,
    ).toBe(true);
    expect(all.forbiddenEffects().map((effect) => effect.tool)).toEqual(["cancel_pending_order"]);
    expect(all.isForbidden("modify_user_address")).toBe(true);
    expect(all.isForbidden("get_order_details")).toBe(false);

    const transfer = createRetailEnv({}, { forbidden: { tools: ["transfer_to_human_agents"] } });
    call(transfer, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "no longer needed" });
    call(transfer, "transfer_to_human_agents", { summary: "x" });
    expect(transfer.forbiddenEffects().map((effect) => effect.tool)).toEqual(["transfer_to_human_agents"]);
    expect(() => createRetailEnv({}, { forbidden: { tools: ["cancel_order"] } })).toThrow(
      /not a retail tool/,
    );
  });

  it("refuses calls after close, and closes twice safely", async () => {
    const env = fresh();
    await env.close();
    await env.close();
    await expect(
      env.call("get_order_details", { order_id: FIX.pendingCard }, { step: 1, author: "agent" }),
    ).rejects.toThrow(/closed/);
  });
});

describe("copy-on-write isolation", () => {
  it("two environments never see each other's writes", () => {
    const a = fresh();
    const b = fresh();
    call(a, "cancel_pending_order", { order_id: FIX.pendingGift, reason: "no longer needed" });
    call(b, "modify_pending_order_payment", {
      order_id: FIX.pendingGift,
      payment_method_id: "paypal_2192303",
    });
    expect(order(a, FIX.pendingGift).status).toBe("cancelled");
    expect(order(b, FIX.pendingGift).status).toBe("pending");
    expect(order(b, FIX.pendingGift).payment_history).toHaveLength(3);
    expect(order(a, FIX.pendingGift).payment_history).toHaveLength(2);
    expect(user(a, FIX.pendingGiftUser).payment_methods.gift_card_5540683).toMatchObject({ balance: 1480.7 });
    expect(user(b, FIX.pendingGiftUser).payment_methods.gift_card_5540683).toMatchObject({ balance: 1480.7 });
    expect(a.hash()).not.toBe(b.hash());
    expect(order(fresh(), FIX.pendingGift).status).toBe("pending");
  });

  it("never changes the shared base data", () => {
    const base = loadRetailData();
    const before = retailDbHash(base);
    const freshHash = fresh().hash();
    expect(freshHash).toBe(before);
    const envs = [fresh(), fresh(), fresh()];
    for (const env of envs) {
      call(env, "cancel_pending_order", { order_id: FIX.pendingGift, reason: "ordered by mistake" });
      call(env, "modify_user_address", {
        user_id: FIX.deliveredUser,
        address1: "x",
        address2: "",
        city: "y",
        state: "z",
        country: "USA",
        zip: "0",
      });
      call(env, "exchange_delivered_order_items", {
        order_id: FIX.delivered,
        item_ids: ["5222576926"],
        new_item_ids: ["7706410293"],
        payment_method_id: "credit_card_8041020",
      });
      call(env, "modify_pending_order_items", {
        order_id: FIX.pendingCard,
        item_ids: ["7751905257"],
        new_item_ids: ["1689914594"],
        payment_method_id: "gift_card_8245350",
      });
      expect(env.hash()).not.toBe(before);
    }
    const snapshot = envs[0]?.snapshot();
    expect(() => {
      (snapshot?.orders[FIX.pendingGift] as { status: string }).status = "pending";
    }).toThrow(TypeError);
    expect(retailDbHash(base)).toBe(before);
    expect(fresh().hash()).toBe(before);
    expect(base.orders[FIX.pendingGift]?.status).toBe("pending");
    expect(base.users[FIX.pendingGiftUser]?.payment_methods.gift_card_5540683).toMatchObject({ balance: 68 });
    expect(Object.isFrozen(base.orders[FIX.pendingGift]?.items[0]?.options)).toBe(true);
  });

  it("copies only the records a rollout writes", () => {
    const env = fresh();
    call(env, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "no longer needed" });
    const snapshot = env.snapshot();
    const base = loadRetailData();
    expect(snapshot.orders[FIX.pendingCard]).not.toBe(base.orders[FIX.pendingCard]);
    expect(snapshot.orders[FIX.pendingGift]).toBe(base.orders[FIX.pendingGift]);
    expect(snapshot.users[FIX.pendingCardUser]).toBe(base.users[FIX.pendingCardUser]);
  });
});

describe("task overlay", () => {
  it("edits a member, adds and deletes records, through copy-on-write", () => {
    const newOrder = { ...structuredClone(loadRetailData().orders[FIX.pendingCard]), order_id: "#W0000001" };
    const env = fresh({
      overlay: [
        { path: ["orders", FIX.pendingCard, "user_id"], value: FIX.pendingGiftUser },
        { path: ["orders", FIX.pendingCard, "items", 0, "price"], value: 1 },
        { path: ["orders", "#W0000001"], value: newOrder },
        { path: ["orders", FIX.processed], value: null },
      ],
    });
    // The overlay is initial state, not an effect.
    expect(env.effects()).toEqual([]);
    expect(env.successfulWrites()).toEqual([]);
    expect(order(env, FIX.pendingCard)).toMatchObject({
      user_id: FIX.pendingGiftUser,
      items: [{ price: 1 }],
    });
    expect(order(env, "#W0000001").order_id).toBe("#W0000001");
    expect(call(env, "get_order_details", { order_id: FIX.processed }).output).toBe("Error: Order not found");
    expect(env.snapshot().orders[FIX.processed]).toBeUndefined();
    expect(order(fresh(), FIX.pendingCard).user_id).toBe(FIX.pendingCardUser);
    expect(fresh({ overlay: [{ path: ["orders", FIX.processed], value: null }] }).hash()).not.toBe(
      fresh().hash(),
    );
  });

  it("rejects an edit that does not fit, naming the edit", () => {
    const bad = (overlay: Array<{ path: Array<string | number>; value: unknown }>, message: RegExp) => {
      try {
        fresh({ overlay });
        throw new Error("expected the overlay to be rejected");
      } catch (error) {
        expect(isHsearchError(error, "bad_input")).toBe(true);
        expect((error as Error).message).toMatch(message);
      }
    };
    bad([{ path: ["carts", "x"], value: {} }], /must start with "products", "users" or "orders"/);
    bad([{ path: ["orders", "#W404", "status"], value: "pending" }], /no orders record '#W404'/);
    bad([{ path: ["orders", FIX.pendingCard, "status"], value: "lost" }], /orders\[#W4923227\]\.status/);
    bad(
      [{ path: ["orders", FIX.pendingCard, "items", 9, "price"], value: 1 }],
      /not an index of a list of 1/,
    );
    bad([{ path: ["orders", FIX.pendingCard, "nope", "x"], value: 1 }], /no such member/);
    bad([{ path: ["orders", FIX.pendingCard, "colour"], value: "red" }], /orders\[#W4923227\]/);
    bad([{ path: ["orders", "#W0000002"], value: { order_id: "#W0000002" } }], /orders\[#W0000002\]/);
    bad([{ path: ["users", "someone"], value: "x" }], /must be an object/);
  });
});

it("serves the policy text", () => {
  expect(retailPolicy()).toMatch(/^# Retail agent policy/);
});

describe("the certified deferral", () => {
  it("offers abstain next to the 16 tools and answers it with the deferral, changing nothing", async () => {
    const env = fresh();
    const before = env.hash();
    expect(env.deferralTool?.name).toBe("abstain");
    const result = await env.call(
      "abstain",
      { category: "trap", reason: "the order is another customer's" },
      { step: 3, author: "agent" },
    );
    expect(result).toEqual({
      ok: true,
      output: "Deferral recorded. The conversation ends.",
      wrote: false,
      deferral: { kind: "defer", via: "abstain", label: "trap", reason: "the order is another customer's" },
    });
    expect(env.hash()).toBe(before);
    expect(env.forbiddenEffects()).toEqual([]);
  });

  it("makes the harness's deferral without a category, logged as the harness's call", async () => {
    const env = fresh();
    expect(await env.deferAsHarness("Harness: an action failed", 4)).toEqual({
      kind: "defer",
      via: "abstain",
      reason: "Harness: an action failed",
    });
    expect(env.effects().map((effect) => [effect.step, effect.author, effect.tool])).toEqual([
      [4, "harness", "abstain"],
    ]);
  });
});
