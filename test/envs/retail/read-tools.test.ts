import { describe, expect, it } from "vitest";
import { loadRetailData } from "../../../src/envs/retail";
import { call, FIX, fresh, json, order } from "./helpers";

describe("user lookup", () => {
  it("finds a user by email, case-insensitively", () => {
    const env = fresh();
    expect(call(env, "find_user_id_by_email", { email: "omar.silva4147@example.com" })).toEqual({
      ok: true,
      output: "omar_silva_7446",
      wrote: false,
    });
    expect(call(env, "find_user_id_by_email", { email: "OMAR.Silva4147@Example.com" }).output).toBe(
      "omar_silva_7446",
    );
    expect(call(env, "find_user_id_by_email", { email: "omar.silva@example.com" }).output).toBe(
      "Error: User not found",
    );
  });

  it("finds a user by name (case-insensitive) and zip (exact)", () => {
    const env = fresh();
    const find = (first_name: string, last_name: string, zip: string) =>
      call(env, "find_user_id_by_name_zip", { first_name, last_name, zip }).output;
    expect(find("Omar", "Silva", "92107")).toBe("omar_silva_7446");
    expect(find("omar", "SILVA", "92107")).toBe("omar_silva_7446");
    expect(find("Omar", "Silva", "92108")).toBe("Error: User not found");
    expect(find("Omar", "Silva", " 92107")).toBe("Error: User not found");
  });

  it("sees users an overlay changed or added, in τ² iteration order", () => {
    const base = loadRetailData().users[FIX.pendingGiftUser];
    const env = fresh({
      overlay: [
        { path: ["users", FIX.pendingGiftUser, "email"], value: "omar@new.example.com" },
        { path: ["users", "omar_silva_0001"], value: { ...base, user_id: "omar_silva_0001" } },
      ],
    });
    expect(call(env, "find_user_id_by_email", { email: "omar@new.example.com" }).output).toBe(
      FIX.pendingGiftUser,
    );
    // The added copy keeps the old email; the base user no longer has it.
    expect(call(env, "find_user_id_by_email", { email: "omar.silva4147@example.com" }).output).toBe(
      "omar_silva_0001",
    );
    // Both match name + zip: the base user comes first, as in a dict scan.
    const byName = { first_name: "Omar", last_name: "Silva", zip: "92107" };
    expect(call(env, "find_user_id_by_name_zip", byName).output).toBe(FIX.pendingGiftUser);
  });
});

describe("record details", () => {
  it("prints an order as τ² does: Python JSON, optional fields as null, floats with a decimal point", () => {
    const result = call(fresh(), "get_order_details", { order_id: FIX.pendingCard });
    expect(result.ok).toBe(true);
    expect(result.wrote).toBe(false);
    expect(result.output).toMatch(
      /^\{"order_id": "#W4923227", "user_id": "isabella_lopez_6490", "address": \{/,
    );
    expect(result.output).toContain(', "cancel_reason": null, "exchange_items": null,');
    expect(result.output.endsWith('"return_items": null, "return_payment_method_id": null}')).toBe(true);
    const parsed = json(result);
    expect(parsed).toMatchObject({
      ...loadRetailData().orders[FIX.pendingCard],
      cancel_reason: null,
      return_items: null,
    });
    expect(call(fresh(), "get_order_details", { order_id: "#W0000000" }).output).toBe(
      "Error: Order not found",
    );
  });

  it("prints a user, with gift card balances as floats", () => {
    const result = call(fresh(), "get_user_details", { user_id: FIX.pendingGiftUser });
    expect(result.output).toContain(
      '"gift_card_5540683": {"source": "gift_card", "id": "gift_card_5540683", "balance": 68.0}',
    );
    expect(json(result)).toEqual(loadRetailData().users[FIX.pendingGiftUser]);
    expect(call(fresh(), "get_user_details", { user_id: "nobody_0" }).output).toBe("Error: User not found");
  });

  it("prints a product with its variants in the file's order (JS would sort these numeric ids)", () => {
    const result = call(fresh(), "get_product_details", { product_id: "1656367028" });
    const ids = [...result.output.matchAll(/"item_id": "(\d+)"/g)].map((match) => match[1]);
    expect(ids.slice(0, 3)).toEqual(["9690244451", "7706410293", "3616838507"]);
    expect(ids).toHaveLength(20);
    expect(json(result)).toEqual(loadRetailData().products["1656367028"]);
    expect(call(fresh(), "get_product_details", { product_id: "6086499569" }).output).toBe(
      "Error: Product not found",
    );
  });

  it("finds an item across products", () => {
    const env = fresh();
    expect(json(call(env, "get_item_details", { item_id: "7706410293" }))).toEqual({
      item_id: "7706410293",
      options: { "switch type": "clicky", backlight: "none", size: "full size" },
      available: true,
      price: 269.16,
    });
    expect(call(env, "get_item_details", { item_id: "0000000000" }).output).toBe("Error: Item not found");
  });

  it("does not take inherited object members for records (ids like 'constructor')", () => {
    const env = fresh();
    expect(call(env, "get_order_details", { order_id: "constructor" }).output).toBe("Error: Order not found");
    expect(call(env, "get_user_details", { user_id: "__proto__" }).output).toBe("Error: User not found");
    expect(call(env, "get_item_details", { item_id: "toString" }).output).toBe("Error: Item not found");
    expect(call(env, "find_user_id_by_email", { email: "constructor" }).output).toBe("Error: User not found");
  });

  it("lists the 50 product types by name", () => {
    const result = call(fresh(), "list_all_product_types", {});
    const types = json(result);
    expect(Object.keys(types)).toHaveLength(50);
    expect(Object.keys(types)).toEqual(Object.keys(types).sort());
    expect(types["Mechanical Keyboard"]).toBe("1656367028");
    expect(result.output.startsWith('{"Action Camera": "3377618313", "Air Purifier": "3821016478",')).toBe(
      true,
    );
  });

  it("reflects the rollout's own writes", () => {
    const env = fresh();
    call(env, "cancel_pending_order", { order_id: FIX.pendingCard, reason: "no longer needed" });
    expect(order(env, FIX.pendingCard).status).toBe("cancelled");
    expect(order(fresh(), FIX.pendingCard).status).toBe("pending");
  });
});

describe("generic tools", () => {
  it("transfers to a human without changing anything, and says the call ends the conversation", () => {
    const env = fresh();
    const before = env.hash();
    expect(call(env, "transfer_to_human_agents", { summary: "wants a refund to a new card" })).toEqual({
      ok: true,
      output: "Transfer successful",
      wrote: false,
      ends: "transferred",
    });
    expect(env.hash()).toBe(before);
    expect(env.successfulWrites()).toEqual([]);
  });

  it("calculates", () => {
    const env = fresh();
    expect(call(env, "calculate", { expression: "(269.16 - 249.95) + (540.12 - 569.43)" })).toEqual({
      ok: true,
      output: "-10.1",
      wrote: false,
    });
    expect(call(env, "calculate", { expression: "2 ** 10" }).output).toBe("1024.0");
    expect(call(env, "calculate", { expression: "import os" }).output).toBe(
      "Error: Invalid characters in expression",
    );
    expect(call(env, "calculate", { expression: "1/0" }).output).toBe("Error: division by zero");
  });
});
