import { describe, expect, it } from "vitest";
import { loadRetailData } from "../../../src/envs/retail";
import { call, ctx, expectRefused, FIX, fresh, giftBalance, json, order, user } from "./helpers";

const address = {
  address1: "1 Main St",
  address2: "Apt 2",
  city: "Austin",
  state: "TX",
  country: "USA",
  zip: "73301",
};

describe("cancel_pending_order", () => {
  it("refunds every payment, credits a gift card at once and marks the order cancelled", () => {
    const env = fresh();
    expect(order(env, FIX.pendingGift).status).toBe("pending");
    expect(giftBalance(env, FIX.pendingGiftUser, "gift_card_5540683")).toBe(68);

    const result = call(env, "cancel_pending_order", {
      order_id: FIX.pendingGift,
      reason: "no longer needed",
    });
    expect(result.wrote).toBe(true);
    const cancelled = json(result);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.cancel_reason).toBe("no longer needed");
    expect(cancelled.payment_history).toEqual([
      { transaction_type: "payment", amount: 1412.7, payment_method_id: "gift_card_5540683" },
      { transaction_type: "refund", amount: 1412.7, payment_method_id: "gift_card_5540683" },
    ]);
    expect(order(env, FIX.pendingGift)).toEqual(cancelled);
    expect(giftBalance(env, FIX.pendingGiftUser, "gift_card_5540683")).toBe(1480.7);
    expect(env.successfulWrites()).toEqual([
      { name: "cancel_pending_order", arguments: { order_id: FIX.pendingGift, reason: "no longer needed" } },
    ]);
  });

  it("leaves the user untouched when the payment was not a gift card", () => {
    const env = fresh();
    const before = user(env, FIX.pendingCardUser);
    const cancelled = json(
      call(env, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "ordered by mistake" }),
    );
    expect(cancelled.cancel_reason).toBe("ordered by mistake");
    expect(user(env, FIX.pendingCardUser)).toEqual(before);
    // Not even copied: only a gift card refund writes to the user record.
    expect(env.snapshot().users[FIX.pendingCardUser]).toBe(loadRetailData().users[FIX.pendingCardUser]);
  });

  it("refuses a non-pending order, a bad reason and an unknown order", () => {
    const env = fresh();
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.processed, reason: "no longer needed" },
      "Non-pending order cannot be cancelled",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.cancelled, reason: "no longer needed" },
      "Non-pending order cannot be cancelled",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.delivered, reason: "no longer needed" },
      "Non-pending order cannot be cancelled",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingGift, reason: "changed my mind" },
      "Invalid reason",
    );
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: "#W0000000", reason: "no longer needed" },
      "Order not found",
    );
  });

  it("refuses an order already modified (status 'pending (item modified)')", () => {
    const env = fresh();
    json(
      call(env, "modify_pending_order_items", {
        order_id: FIX.pendingCard,
        item_ids: ["7751905257"],
        new_item_ids: ["1689914594"],
        payment_method_id: "credit_card_8554680",
      }),
    );
    expect(order(env, FIX.pendingCard).status).toBe("pending (item modified)");
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingCard, reason: "no longer needed" },
      "Non-pending order cannot be cancelled",
    );
  });

  it("refuses whole, changing nothing, when a paying method is not the order owner's (τ² would half-apply)", () => {
    const env = fresh({
      overlay: [{ path: ["orders", FIX.pendingGift, "user_id"], value: FIX.pendingCardUser }],
    });
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingGift, reason: "no longer needed" },
      "Payment method not found",
    );
    expect(order(env, FIX.pendingGift).status).toBe("pending");
  });
});

describe("modify_pending_order_items", () => {
  it("swaps an item, refunds the difference to a gift card (unrounded, as τ²) and marks the order modified", () => {
    const env = fresh();
    const result = json(
      call(env, "modify_pending_order_items", {
        order_id: FIX.pendingGift,
        item_ids: ["5645314103"],
        new_item_ids: ["9665100170"],
        payment_method_id: "gift_card_5540683",
      }),
    );
    const modified = order(env, FIX.pendingGift);
    expect(modified).toEqual(result);
    expect(modified.status).toBe("pending (item modified)");
    const swapped = modified.items.find((item) => item.item_id === "9665100170");
    expect(swapped).toEqual({
      name: "Jigsaw Puzzle",
      product_id: "1808611083",
      item_id: "9665100170",
      price: 45.39,
      options: { pieces: "1500", theme: "animals", "difficulty level": "beginner" },
    });
    expect(modified.items.some((item) => item.item_id === "5645314103")).toBe(false);
    expect(modified.payment_history.at(-1)).toEqual({
      transaction_type: "refund",
      amount: Math.abs(45.39 - 46.19), // 0.7999999999999972: τ² does not round this amount
      payment_method_id: "gift_card_5540683",
    });
    expect(giftBalance(env, FIX.pendingGiftUser, "gift_card_5540683")).toBe(68.8);
  });

  it("charges a positive difference as a payment", () => {
    const env = fresh();
    call(env, "modify_pending_order_items", {
      order_id: FIX.pendingGift,
      item_ids: ["5645314103"],
      new_item_ids: ["4572024853"],
      payment_method_id: "gift_card_5540683",
    });
    const last = order(env, FIX.pendingGift).payment_history.at(-1);
    expect(last?.transaction_type).toBe("payment");
    expect(last?.amount).toBe(53.72 - 46.19);
    expect(giftBalance(env, FIX.pendingGiftUser, "gift_card_5540683")).toBe(60.47);
  });

  it("reproduces τ²'s quirk: every changed item takes the price and options of the last new variant", () => {
    const env = fresh();
    call(env, "modify_pending_order_items", {
      order_id: FIX.pendingGift,
      item_ids: ["5645314103", "7154215719"],
      new_item_ids: ["6245746168", "8479046075"],
      payment_method_id: "credit_card_5322562",
    });
    const modified = order(env, FIX.pendingGift);
    const puzzle = modified.items.find((item) => item.item_id === "6245746168");
    const shelf = modified.items.find((item) => item.item_id === "8479046075");
    const lastVariant = { material: "wood", color: "white", height: "5 ft" };
    expect(shelf).toMatchObject({ product_id: "8600330539", price: 451.01, options: lastVariant });
    // The puzzle keeps its name and product but gets the bookshelf variant's price and options.
    expect(puzzle).toMatchObject({
      name: "Jigsaw Puzzle",
      product_id: "1808611083",
      price: 451.01,
      options: lastVariant,
    });
    // The money is still right: each item's own new price counts.
    expect(modified.payment_history.at(-1)).toEqual({
      transaction_type: "refund",
      amount: Math.abs(46.0 - 46.19 + (451.01 - 505.62)),
      payment_method_id: "credit_card_5322562",
    });
  });

  it("can be done once per order", () => {
    const env = fresh();
    const args = {
      order_id: FIX.pendingCard,
      item_ids: ["7751905257"],
      new_item_ids: ["1689914594"],
      payment_method_id: "paypal_1621947",
    };
    expect(call(env, "modify_pending_order_items", args).ok).toBe(true);
    expectRefused(
      env,
      "modify_pending_order_items",
      { ...args, item_ids: ["1689914594"], new_item_ids: ["1052700637"] },
      "Non-pending order cannot be modified",
    );
  });

  it("refuses every invalid request with τ²'s message", () => {
    const env = fresh();
    const base = { order_id: FIX.pendingGift, payment_method_id: "gift_card_5540683" };
    const refuse = (args: Record<string, unknown>, message: string) =>
      expectRefused(env, "modify_pending_order_items", { ...base, ...args }, message);
    refuse(
      { order_id: FIX.processed, item_ids: ["6469567736"], new_item_ids: ["1"] },
      "Non-pending order cannot be modified",
    );
    refuse({ order_id: "#W404", item_ids: [], new_item_ids: [] }, "Order not found");
    refuse({ item_ids: ["7751905257"], new_item_ids: ["1689914594"] }, "7751905257 not found");
    refuse(
      { item_ids: ["5645314103", "5645314103"], new_item_ids: ["9665100170", "6245746168"] },
      "5645314103 not found",
    );
    refuse(
      { item_ids: ["5645314103"], new_item_ids: ["9665100170", "6245746168"] },
      "The number of items to be exchanged should match",
    );
    refuse(
      { item_ids: ["5645314103"], new_item_ids: ["5645314103"] },
      "The new item id should be different from the old item id",
    );
    refuse({ item_ids: ["5645314103"], new_item_ids: ["8479046075"] }, "Variant not found");
    refuse(
      { item_ids: ["5645314103"], new_item_ids: ["3614853563"] },
      "New item 3614853563 not found or available",
    );
    refuse(
      { item_ids: ["5645314103"], new_item_ids: ["9665100170"], payment_method_id: "credit_card_8554680" },
      "Payment method not found",
    );
  });

  it("refuses a gift card that cannot cover the difference, and an item whose product is gone", () => {
    const lowCard = fresh({
      overlay: [
        { path: ["users", FIX.pendingGiftUser, "payment_methods", "gift_card_5540683", "balance"], value: 5 },
      ],
    });
    expectRefused(
      lowCard,
      "modify_pending_order_items",
      {
        order_id: FIX.pendingGift,
        item_ids: ["5645314103"],
        new_item_ids: ["4572024853"],
        payment_method_id: "gift_card_5540683",
      },
      "Insufficient gift card balance to pay for the new item",
    );

    const noProduct = fresh({ overlay: [{ path: ["products", "1808611083"], value: null }] });
    expectRefused(
      noProduct,
      "modify_pending_order_items",
      {
        order_id: FIX.pendingGift,
        item_ids: ["5645314103"],
        new_item_ids: ["9665100170"],
        payment_method_id: "gift_card_5540683",
      },
      "Product not found",
    );
  });
});

describe("modify_pending_order_address", () => {
  it("replaces the address of a pending order, also after an item modification", () => {
    const env = fresh();
    const changed = json(
      call(env, "modify_pending_order_address", { order_id: FIX.pendingCard, ...address }),
    );
    expect(changed.address).toEqual({
      address1: "1 Main St",
      address2: "Apt 2",
      city: "Austin",
      country: "USA",
      state: "TX",
      zip: "73301",
    });
    call(env, "modify_pending_order_items", {
      order_id: FIX.pendingCard,
      item_ids: ["7751905257"],
      new_item_ids: ["1689914594"],
      payment_method_id: "paypal_1621947",
    });
    const again = json(
      call(env, "modify_pending_order_address", { order_id: FIX.pendingCard, ...address, city: "Dallas" }),
    );
    expect(again.address).toMatchObject({ city: "Dallas" });
    expect(env.successfulWrites().map((write) => write.name)).toEqual([
      "modify_pending_order_address",
      "modify_pending_order_items",
      "modify_pending_order_address",
    ]);
  });

  it("refuses a non-pending or unknown order", () => {
    const env = fresh();
    expectRefused(
      env,
      "modify_pending_order_address",
      { order_id: FIX.delivered, ...address },
      "Non-pending order cannot be modified",
    );
    expectRefused(env, "modify_pending_order_address", { order_id: "#W1", ...address }, "Order not found");
  });
});

describe("modify_pending_order_payment", () => {
  it("charges the new method and refunds the old one", () => {
    const env = fresh();
    const changed = json(
      call(env, "modify_pending_order_payment", {
        order_id: FIX.pendingCard,
        payment_method_id: "paypal_1621947",
      }),
    );
    expect(changed.payment_history).toEqual([
      { transaction_type: "payment", amount: 321.18, payment_method_id: "credit_card_8554680" },
      { transaction_type: "payment", amount: 321.18, payment_method_id: "paypal_1621947" },
      { transaction_type: "refund", amount: 321.18, payment_method_id: "credit_card_8554680" },
    ]);
    expect(changed.status).toBe("pending");
    // Now there are three entries: a second change is refused.
    expectRefused(
      env,
      "modify_pending_order_payment",
      { order_id: FIX.pendingCard, payment_method_id: "credit_card_8897086" },
      "There should be exactly one payment for a pending order",
    );
  });

  it("credits an old gift card and debits a new one", () => {
    const env = fresh();
    call(env, "modify_pending_order_payment", {
      order_id: FIX.pendingGift,
      payment_method_id: "credit_card_5322562",
    });
    expect(giftBalance(env, FIX.pendingGiftUser, "gift_card_5540683")).toBe(1480.7);

    const rich = fresh({
      overlay: [
        {
          path: ["users", FIX.pendingCardUser, "payment_methods", "gift_card_8245350", "balance"],
          value: 400,
        },
      ],
    });
    call(rich, "modify_pending_order_payment", {
      order_id: FIX.pendingCard,
      payment_method_id: "gift_card_8245350",
    });
    expect(giftBalance(rich, FIX.pendingCardUser, "gift_card_8245350")).toBe(78.82);
  });

  it("refuses every invalid request with τ²'s message", () => {
    const env = fresh();
    const refuse = (args: Record<string, unknown>, message: string) =>
      expectRefused(env, "modify_pending_order_payment", args, message);
    refuse(
      { order_id: FIX.processed, payment_method_id: "paypal_1621947" },
      "Non-pending order cannot be modified",
    );
    refuse({ order_id: "#W2", payment_method_id: "paypal_1621947" }, "Order not found");
    refuse({ order_id: FIX.pendingCard, payment_method_id: "paypal_2192303" }, "Payment method not found");
    refuse(
      { order_id: FIX.pendingCard, payment_method_id: "credit_card_8554680" },
      "The new payment method should be different from the current one",
    );
    refuse(
      { order_id: FIX.pendingCard, payment_method_id: "gift_card_8245350" },
      "Insufficient gift card balance to pay for the order",
    );
  });
});

describe("modify_user_address", () => {
  it("replaces the user's default address, and name+zip lookup follows it", () => {
    const env = fresh();
    const changed = json(call(env, "modify_user_address", { user_id: FIX.pendingGiftUser, ...address }));
    expect(changed.address).toEqual({
      address1: "1 Main St",
      address2: "Apt 2",
      city: "Austin",
      country: "USA",
      state: "TX",
      zip: "73301",
    });
    const find = (zip: string) =>
      call(env, "find_user_id_by_name_zip", { first_name: "Omar", last_name: "Silva", zip });
    expect(find("73301").output).toBe(FIX.pendingGiftUser);
    expect(find("92107").output).toBe("Error: User not found");
  });

  it("refuses an unknown user", () => {
    expectRefused(fresh(), "modify_user_address", { user_id: "nobody_1", ...address }, "User not found");
  });
});

describe("exchange_delivered_order_items", () => {
  it("records the exchange, sorted, with the rounded price difference, and moves no money", () => {
    const env = fresh();
    const before = order(env, FIX.delivered);
    expect(before.status).toBe("delivered");
    const exchanged = json(
      call(env, "exchange_delivered_order_items", {
        order_id: FIX.delivered,
        item_ids: ["9970989750", "5222576926"],
        new_item_ids: ["3526747930", "7706410293"],
        payment_method_id: "credit_card_8041020",
      }),
    );
    expect(exchanged).toEqual({
      ...before,
      status: "exchange requested",
      exchange_items: ["5222576926", "9970989750"],
      exchange_new_items: ["3526747930", "7706410293"],
      exchange_payment_method_id: "credit_card_8041020",
      exchange_price_difference: -10.1,
    });
    expect(order(env, FIX.delivered)).toEqual(exchanged);
  });

  it("handles an item held twice, pays from a gift card that covers it, and allows the same variant back", () => {
    const env = fresh();
    const twice = json(
      call(env, "exchange_delivered_order_items", {
        order_id: FIX.deliveredTwice,
        item_ids: ["7292993796", "7292993796"],
        new_item_ids: ["4238115171", "2820119811"],
        payment_method_id: "gift_card_7245904",
      }),
    );
    expect(twice.exchange_price_difference).toBe(-3.14);
    expect(twice.exchange_items).toEqual(["7292993796", "7292993796"]);
    expect(giftBalance(env, "aarav_anderson_8794", "gift_card_7245904")).toBe(17);

    // τ² does not refuse exchanging an item for the very same item id (modify does).
    const same = json(
      call(fresh(), "exchange_delivered_order_items", {
        order_id: FIX.deliveredTwice,
        item_ids: ["7292993796"],
        new_item_ids: ["7292993796"],
        payment_method_id: "gift_card_7245904",
      }),
    );
    expect(same.exchange_price_difference).toBe(0);
  });

  it("refuses every invalid request with τ²'s message", () => {
    const env = fresh();
    const base = { order_id: FIX.delivered, payment_method_id: "credit_card_8041020" };
    const refuse = (args: Record<string, unknown>, message: string) =>
      expectRefused(env, "exchange_delivered_order_items", { ...base, ...args }, message);
    refuse(
      { order_id: FIX.pendingCard, item_ids: ["7751905257"], new_item_ids: ["1689914594"] },
      "Non-delivered order cannot be exchanged",
    );
    refuse({ order_id: "#W3", item_ids: [], new_item_ids: [] }, "Order not found");
    refuse({ item_ids: ["7751905257"], new_item_ids: ["1689914594"] }, "Number of 7751905257 not found.");
    refuse(
      {
        order_id: FIX.deliveredTwice,
        item_ids: ["7292993796", "7292993796", "7292993796"],
        new_item_ids: ["4238115171", "2820119811", "3909406921"],
        payment_method_id: "gift_card_7245904",
      },
      "Number of 7292993796 not found.",
    );
    refuse(
      { item_ids: ["5222576926"], new_item_ids: [] },
      "The number of items to be exchanged should match.",
    );
    refuse({ item_ids: ["5222576926"], new_item_ids: ["3526747930"] }, "Variant not found");
    refuse(
      { item_ids: ["5222576926"], new_item_ids: ["9690244451"] },
      "New item 9690244451 not found or available",
    );
    refuse(
      { item_ids: ["5222576926"], new_item_ids: ["7706410293"], payment_method_id: "paypal_1621947" },
      "Payment method not found",
    );
    refuse(
      { item_ids: ["5222576926"], new_item_ids: ["7706410293"], payment_method_id: "gift_card_6052478" },
      "Insufficient gift card balance to pay for the price difference",
    );
  });

  it("can be done once: the order is no longer delivered", () => {
    const env = fresh();
    const args = {
      order_id: FIX.delivered,
      item_ids: ["5222576926"],
      new_item_ids: ["7706410293"],
      payment_method_id: "credit_card_8041020",
    };
    expect(call(env, "exchange_delivered_order_items", args).ok).toBe(true);
    expectRefused(env, "exchange_delivered_order_items", args, "Non-delivered order cannot be exchanged");
    expectRefused(
      env,
      "return_delivered_order_items",
      { order_id: FIX.delivered, item_ids: ["5222576926"], payment_method_id: "credit_card_8041020" },
      "Non-delivered order cannot be returned",
    );
  });
});

describe("return_delivered_order_items", () => {
  it("records the return, sorted, to the original payment method", () => {
    const env = fresh();
    const before = order(env, FIX.delivered);
    const returned = json(
      call(env, "return_delivered_order_items", {
        order_id: FIX.delivered,
        item_ids: ["9970989750", "5222576926"],
        payment_method_id: "credit_card_8041020",
      }),
    );
    expect(returned).toEqual({
      ...before,
      status: "return requested",
      return_items: ["5222576926", "9970989750"],
      return_payment_method_id: "credit_card_8041020",
    });
  });

  it("accepts any gift card of the user, and an item as many times as the order holds it", () => {
    const toGift = json(
      call(fresh(), "return_delivered_order_items", {
        order_id: FIX.delivered,
        item_ids: ["6857426243"],
        payment_method_id: "gift_card_6052478",
      }),
    );
    expect(toGift.return_payment_method_id).toBe("gift_card_6052478");
    const both = json(
      call(fresh(), "return_delivered_order_items", {
        order_id: FIX.deliveredTwice,
        item_ids: ["7292993796", "7292993796"],
        payment_method_id: "gift_card_7245904",
      }),
    );
    expect(both.return_items).toEqual(["7292993796", "7292993796"]);
  });

  it("refuses every invalid request with τ²'s message", () => {
    const env = fresh();
    const refuse = (args: Record<string, unknown>, message: string) =>
      expectRefused(env, "return_delivered_order_items", args, message);
    refuse(
      { order_id: FIX.pendingCard, item_ids: ["7751905257"], payment_method_id: "credit_card_8554680" },
      "Non-delivered order cannot be returned",
    );
    refuse({ order_id: "#W4", item_ids: [], payment_method_id: "x" }, "Order not found");
    refuse(
      { order_id: FIX.delivered, item_ids: ["5222576926"], payment_method_id: "paypal_1621947" },
      "Payment method not found",
    );
    refuse(
      { order_id: FIX.delivered, item_ids: ["5222576926"], payment_method_id: "paypal_7425862" },
      "Payment method should be the original payment method",
    );
    refuse(
      { order_id: FIX.delivered, item_ids: ["5222576926"], payment_method_id: "credit_card_6547060" },
      "Payment method should be the original payment method",
    );
    refuse(
      { order_id: FIX.delivered, item_ids: ["7751905257"], payment_method_id: "credit_card_8041020" },
      "Some item not found",
    );
    refuse(
      {
        order_id: FIX.deliveredTwice,
        item_ids: ["7292993796", "7292993796", "7292993796"],
        payment_method_id: "gift_card_7245904",
      },
      "Some item not found",
    );
  });
});

describe("an order whose customer record is missing", () => {
  it("is refused by every tool that needs the customer's payment methods", () => {
    const env = fresh({ overlay: [{ path: ["users", FIX.pendingCardUser], value: null }] });
    expectRefused(
      env,
      "cancel_pending_order",
      { order_id: FIX.pendingCard, reason: "no longer needed" },
      "User not found",
    );
    expectRefused(
      env,
      "modify_pending_order_payment",
      { order_id: FIX.pendingCard, payment_method_id: "paypal_1621947" },
      "User not found",
    );
    expectRefused(
      env,
      "modify_pending_order_items",
      {
        order_id: FIX.pendingCard,
        item_ids: ["7751905257"],
        new_item_ids: ["1689914594"],
        payment_method_id: "paypal_1621947",
      },
      "User not found",
    );
    // The address of the order needs no customer record.
    expect(call(env, "modify_pending_order_address", { order_id: FIX.pendingCard, ...address }).ok).toBe(
      true,
    );
  });
});

describe("a refused write leaves no trace in state", () => {
  it("keeps the db equal to the base, and logs the call as failed", () => {
    const env = fresh();
    const baseHash = fresh().hash();
    call(env, "return_delivered_order_items", {
      order_id: FIX.delivered,
      item_ids: ["1"],
      payment_method_id: "credit_card_8041020",
    });
    expect(env.hash()).toBe(baseHash);
    expect(env.snapshot().orders[FIX.delivered]).toBe(loadRetailData().orders[FIX.delivered]);
    expect(env.effects()).toEqual([
      {
        step: ctx.step,
        author: "agent",
        tool: "return_delivered_order_items",
        arguments: { order_id: FIX.delivered, item_ids: ["1"], payment_method_id: "credit_card_8041020" },
        ok: false,
        wrote: false,
      },
    ]);
  });
});
