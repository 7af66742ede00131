import { expect } from "vitest";
import type { RetailEnvSpec } from "../../../src/domain/task";
import { createRetailEnv, type Order, type RetailEnvironment, type User } from "../../../src/envs/retail";
import type { ToolResult } from "../../../src/envs/types";

/** Orders and users of the vendored db used as fixtures; each test asserts the preconditions it relies on. */
export const FIX = {
  /** pending, one payment of 1412.7 by gift_card_5540683 (balance 68.0); two Jigsaw Puzzles and a Bookshelf. */
  pendingGift: "#W9728773",
  pendingGiftUser: "omar_silva_7446",
  /** pending, one payment of 321.18 by credit_card_8554680; the user also has gift_card_8245350 (60.0) and paypal. */
  pendingCard: "#W4923227",
  pendingCardUser: "isabella_lopez_6490",
  /** delivered, paid by credit_card_8041020; the user has gift_card_6052478 (10.0), paypal_7425862, credit_card_6547060. */
  delivered: "#W4250821",
  deliveredUser: "sophia_jackson_6355",
  /** delivered, two identical Tea Kettles 7292993796 (94.8 each), paid by gift_card_7245904 (balance 17.0). */
  deliveredTwice: "#W4316152",
  processed: "#W2611340",
  cancelled: "#W3220387",
} as const;

export const ctx = { step: 1, author: "agent" as const };

export function call(env: RetailEnvironment, name: string, args: unknown): ToolResult {
  return env.callSync(name, args, ctx);
}

export function json(result: ToolResult): Record<string, unknown> {
  expect(result.ok).toBe(true);
  return JSON.parse(result.output) as Record<string, unknown>;
}

export function fresh(spec?: RetailEnvSpec): RetailEnvironment {
  return createRetailEnv(spec);
}

/** Assert the call failed with exactly this message and changed nothing. */
export function expectRefused(env: RetailEnvironment, name: string, args: unknown, message: string): void {
  const before = env.hash();
  const writesBefore = env.successfulWrites().length;
  const result = call(env, name, args);
  expect(result).toEqual({ ok: false, output: `Error: ${message}`, wrote: false });
  expect(env.hash()).toBe(before);
  expect(env.successfulWrites()).toHaveLength(writesBefore);
}

export function order(env: RetailEnvironment, orderId: string): Order {
  return json(call(env, "get_order_details", { order_id: orderId })) as unknown as Order;
}

export function user(env: RetailEnvironment, userId: string): User {
  return json(call(env, "get_user_details", { user_id: userId })) as unknown as User;
}

export function giftBalance(env: RetailEnvironment, userId: string, methodId: string): number {
  const method = user(env, userId).payment_methods[methodId];
  if (method?.source !== "gift_card") throw new Error(`${methodId} is not a gift card of ${userId}`);
  return method.balance;
}
