import { describe, expect, it } from "vitest";
import { canonicalJson, hashJson } from "../../../src/core/canonical-json";
import { loadRetailData, type RetailData, retailDbHash } from "../../../src/envs/retail";
import { call, FIX, fresh } from "./helpers";

function mutableCopy(db: RetailData): {
  products: Record<string, unknown>;
  users: Record<string, unknown>;
  orders: Record<string, Record<string, unknown>>;
} {
  return structuredClone(db) as never;
}

describe("canonical database hash", () => {
  it("is the same for a live env, its snapshot and a deep copy of it (no identity shortcuts)", () => {
    const env = fresh();
    call(env, "cancel_pending_order", { order_id: FIX.pendingGift, reason: "no longer needed" });
    call(env, "exchange_delivered_order_items", {
      order_id: FIX.delivered,
      item_ids: ["5222576926"],
      new_item_ids: ["7706410293"],
      payment_method_id: "credit_card_8041020",
    });
    const snapshot = env.snapshot();
    expect(retailDbHash(snapshot)).toBe(env.hash());
    expect(retailDbHash(mutableCopy(snapshot) as unknown as RetailData)).toBe(env.hash());
    expect(retailDbHash(mutableCopy(loadRetailData()) as unknown as RetailData)).toBe(fresh().hash());
  });

  it("treats absent optional order fields as null, and ignores key order", () => {
    const copy = mutableCopy(loadRetailData());
    const order = copy.orders[FIX.pendingCard] as Record<string, unknown>;
    order.cancel_reason = null;
    order.return_items = null;
    copy.orders[FIX.pendingCard] = Object.fromEntries(Object.entries(order).reverse());
    expect(retailDbHash(copy as unknown as RetailData)).toBe(fresh().hash());
  });

  it("changes with any change of content, and comes back when the content does", () => {
    const baseHash = fresh().hash();
    const copy = mutableCopy(loadRetailData());
    const order = copy.orders[FIX.pendingCard] as { items: Array<{ price: number }> };
    const item = order.items[0] as { price: number };
    expect(item.price).toBe(321.18);
    item.price = 321.19;
    expect(retailDbHash(copy as unknown as RetailData)).not.toBe(baseHash);
    item.price = 321.18;
    expect(retailDbHash(copy as unknown as RetailData)).toBe(baseHash);

    const withExtra = mutableCopy(loadRetailData());
    withExtra.orders["#W0000009"] = {
      ...structuredClone(copy.orders[FIX.pendingCard]),
      order_id: "#W0000009",
    };
    expect(retailDbHash(withExtra as unknown as RetailData)).not.toBe(baseHash);
    const without = mutableCopy(loadRetailData());
    delete without.orders[FIX.pendingCard];
    expect(retailDbHash(without as unknown as RetailData)).not.toBe(baseHash);
  });

  it("tells apart the same writes on different records, and equal end states reached differently agree", () => {
    const a = fresh();
    const b = fresh();
    call(a, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "no longer needed" });
    call(b, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "ordered by mistake" });
    expect(a.hash()).not.toBe(b.hash());

    const address = {
      address1: "1 Main St",
      address2: "",
      city: "Austin",
      state: "TX",
      country: "USA",
      zip: "73301",
    };
    const direct = fresh();
    call(direct, "modify_user_address", { user_id: FIX.pendingCardUser, ...address });
    const roundabout = fresh();
    call(roundabout, "modify_user_address", { user_id: FIX.pendingCardUser, ...address, city: "Dallas" });
    call(roundabout, "modify_user_address", { user_id: FIX.pendingCardUser, ...address });
    expect(roundabout.hash()).toBe(direct.hash());
  });

  it("agrees in equality with hashing the whole canonical db in one piece", () => {
    const whole = (db: RetailData) => {
      const copy = mutableCopy(db);
      for (const order of Object.values(copy.orders)) {
        for (const field of [
          "cancel_reason",
          "exchange_items",
          "exchange_new_items",
          "exchange_payment_method_id",
          "exchange_price_difference",
          "return_items",
          "return_payment_method_id",
        ]) {
          order[field] ??= null;
        }
      }
      return hashJson(copy);
    };
    const a = fresh();
    call(a, "return_delivered_order_items", {
      order_id: FIX.delivered,
      item_ids: ["5222576926"],
      payment_method_id: "credit_card_8041020",
    });
    const b = fresh();
    call(b, "return_delivered_order_items", {
      order_id: FIX.delivered,
      item_ids: ["5222576926"],
      payment_method_id: "gift_card_6052478",
    });
    const c = fresh();
    call(c, "return_delivered_order_items", {
      order_id: FIX.delivered,
      item_ids: ["5222576926"],
      payment_method_id: "credit_card_8041020",
    });
    const envs = [a, b, c, fresh()];
    for (const x of envs) {
      for (const y of envs) {
        expect(x.hash() === y.hash()).toBe(whole(x.snapshot()) === whole(y.snapshot()));
      }
    }
    expect(canonicalJson(a.snapshot().orders[FIX.delivered])).toContain('"return_items":["5222576926"]');
  });
});
