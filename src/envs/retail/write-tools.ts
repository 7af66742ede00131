/**
 * The seven write tools, with τ²'s checks, messages and their order. Each tool validates everything first and only
 * then asks the state for mutable copies, so a refused call (ToolError) leaves the database untouched. τ² itself can
 * half-apply a call whose late lookup fails (e.g. a cancel whose payment method is not the user's); here that call is
 * refused whole.
 */
import { pyRound2 } from "./py-format";
import { type ToolArgs, ToolError, type ToolImpl } from "./read-tools";
import { renderRecord } from "./render";
import { CANCEL_REASONS, type Order, own, type PaymentMethod, type User, type Variant } from "./schema";
import type { RetailState } from "./state";

const str = (args: ToolArgs, name: string): string => args[name] as string;
const list = (args: ToolArgs, name: string): string[] => args[name] as string[];

function getOrder(state: RetailState, orderId: string): Readonly<Order> {
  const order = state.get("orders", orderId);
  if (order === undefined) throw new ToolError("Order not found");
  return order;
}

function getUser(state: RetailState, userId: string): Readonly<User> {
  const user = state.get("users", userId);
  if (user === undefined) throw new ToolError("User not found");
  return user;
}

function getPaymentMethod(state: RetailState, userId: string, methodId: string): Readonly<PaymentMethod> {
  const method = own(getUser(state, userId).payment_methods, methodId);
  if (method === undefined) throw new ToolError("Payment method not found");
  return method;
}

function getVariant(state: RetailState, productId: string, itemId: string): Readonly<Variant> {
  const product = state.get("products", productId);
  if (product === undefined) throw new ToolError("Product not found");
  const variant = own(product.variants, itemId);
  if (variant === undefined) throw new ToolError("Variant not found");
  return variant;
}

/** Each id may be asked for at most as many times as the order holds it. */
function checkItemsPresent(
  order: Readonly<Order>,
  itemIds: string[],
  message: (itemId: string) => string,
): void {
  const held = countBy(order.items.map((item) => item.item_id));
  const asked = countBy(itemIds);
  for (const itemId of itemIds) {
    if ((asked.get(itemId) ?? 0) > (held.get(itemId) ?? 0)) throw new ToolError(message(itemId));
  }
}

function countBy(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/**
 * Price difference of swapping each old item (the first with its id) for the new variant, summed in order from 0 like
 * τ², plus the last variant looked up (see the quirk in modify_pending_order_items).
 */
function priceDifference(
  state: RetailState,
  order: Readonly<Order>,
  itemIds: string[],
  newItemIds: string[],
  options: { refuseSameItem: boolean },
): { difference: number; lastVariant: Readonly<Variant> | undefined } {
  let difference = 0;
  let lastVariant: Readonly<Variant> | undefined;
  itemIds.forEach((itemId, index) => {
    const newItemId = newItemIds[index] as string;
    if (options.refuseSameItem && itemId === newItemId) {
      throw new ToolError("The new item id should be different from the old item id");
    }
    const item = order.items.find((candidate) => candidate.item_id === itemId);
    if (item === undefined) throw new ToolError(`Item ${itemId} not found`);
    const variant = getVariant(state, item.product_id, newItemId);
    if (!variant.available) throw new ToolError(`New item ${newItemId} not found or available`);
    difference += variant.price - item.price;
    lastVariant = variant;
  });
  return { difference, lastVariant };
}

/** What modify and exchange check alike, in τ²'s order, with each tool's own messages (τ²'s differ). */
interface SwapChecks {
  status: Order["status"];
  wrongStatus: string;
  notHeld: (itemId: string) => string;
  countMismatch: string;
  refuseSameItem: boolean;
}

/** A swap of an order's items for new variants, checked up to its price difference (before any payment check). */
function checkedSwap(state: RetailState, args: ToolArgs, checks: SwapChecks) {
  const orderId = str(args, "order_id");
  const itemIds = list(args, "item_ids");
  const newItemIds = list(args, "new_item_ids");
  const methodId = str(args, "payment_method_id");
  const order = getOrder(state, orderId);
  if (order.status !== checks.status) throw new ToolError(checks.wrongStatus);
  checkItemsPresent(order, itemIds, checks.notHeld);
  if (itemIds.length !== newItemIds.length) throw new ToolError(checks.countMismatch);
  const { difference, lastVariant } = priceDifference(state, order, itemIds, newItemIds, checks);
  return { orderId, itemIds, newItemIds, methodId, order, difference, lastVariant };
}

/** A gift card must hold `amount`; other methods settle outside. */
function requireCovers(method: Readonly<PaymentMethod>, amount: number, refusal: string): void {
  if (method.source === "gift_card" && method.balance < amount) throw new ToolError(refusal);
}

/** Add `amount` (negative to charge) to the method's balance if it is a gift card; other methods settle outside. */
function creditGiftCard(state: RetailState, userId: string, methodId: string, amount: number): void {
  if (getPaymentMethod(state, userId, methodId).source !== "gift_card") return;
  const method = own(state.mutable("users", userId).payment_methods, methodId);
  if (method?.source === "gift_card") method.balance = pyRound2(method.balance + amount);
}

function addressFrom(args: ToolArgs): Order["address"] {
  return {
    address1: str(args, "address1"),
    address2: str(args, "address2"),
    city: str(args, "city"),
    country: str(args, "country"),
    state: str(args, "state"),
    zip: str(args, "zip"),
  };
}

export const WRITE_TOOLS: Record<string, ToolImpl> = {
  cancel_pending_order: (state, args) => {
    const orderId = str(args, "order_id");
    const reason = str(args, "reason");
    const order = getOrder(state, orderId);
    if (order.status !== "pending") throw new ToolError("Non-pending order cannot be cancelled");
    if (!(CANCEL_REASONS as readonly string[]).includes(reason)) throw new ToolError("Invalid reason");
    for (const payment of order.payment_history)
      getPaymentMethod(state, order.user_id, payment.payment_method_id);

    const changed = state.mutable("orders", orderId);
    const refunds = changed.payment_history.map((payment) => ({
      transaction_type: "refund" as const,
      amount: payment.amount,
      payment_method_id: payment.payment_method_id,
    }));
    // Gift cards are credited at once, one payment at a time, each sum rounded to cents.
    for (const refund of refunds)
      creditGiftCard(state, changed.user_id, refund.payment_method_id, refund.amount);
    changed.status = "cancelled";
    changed.cancel_reason = reason as Order["cancel_reason"];
    changed.payment_history.push(...refunds);
    return renderRecord("orders", changed);
  },

  /**
   * τ² quirk, reproduced on purpose: after validating, τ² rewrites every changed item with the price and options of the
   * *last* new variant it looked up (its loop variable leaks), and each rewrite targets the first item that currently has
   * the old id (so an item renamed earlier in the same call can be picked again). Only the item ids come out right.
   * Reproducing it keeps expected databases, hence rewards, identical to τ²'s for the tasks that modify several items at
   * once (tasks 20, 21, 37); the price difference charged is computed correctly from each item's own variant. A
   * consequence, as in τ²: the same swaps given in another order can leave a different database.
   */
  modify_pending_order_items: (state, args) => {
    const { orderId, itemIds, newItemIds, methodId, order, difference, lastVariant } = checkedSwap(
      state,
      args,
      {
        status: "pending",
        wrongStatus: "Non-pending order cannot be modified",
        notHeld: (itemId) => `${itemId} not found`,
        countMismatch: "The number of items to be exchanged should match",
        refuseSameItem: true,
      },
    );
    requireCovers(
      getPaymentMethod(state, order.user_id, methodId),
      difference,
      "Insufficient gift card balance to pay for the new item",
    );

    const changed = state.mutable("orders", orderId);
    changed.payment_history.push({
      transaction_type: difference > 0 ? "payment" : "refund",
      amount: Math.abs(difference),
      payment_method_id: methodId,
    });
    creditGiftCard(state, changed.user_id, methodId, -difference);
    itemIds.forEach((itemId, index) => {
      const item = changed.items.find((candidate) => candidate.item_id === itemId);
      if (item === undefined || lastVariant === undefined) throw new ToolError(`Item ${itemId} not found`); // unreachable
      item.item_id = newItemIds[index] as string;
      item.price = lastVariant.price;
      item.options = structuredClone(lastVariant.options);
    });
    changed.status = "pending (item modified)";
    return renderRecord("orders", changed);
  },

  modify_pending_order_address: (state, args) => {
    const orderId = str(args, "order_id");
    const order = getOrder(state, orderId);
    if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
    const changed = state.mutable("orders", orderId);
    changed.address = addressFrom(args);
    return renderRecord("orders", changed);
  },

  modify_pending_order_payment: (state, args) => {
    const orderId = str(args, "order_id");
    const methodId = str(args, "payment_method_id");
    const order = getOrder(state, orderId);
    if (!order.status.includes("pending")) throw new ToolError("Non-pending order cannot be modified");
    const method = getPaymentMethod(state, order.user_id, methodId);
    const [payment, ...others] = order.payment_history;
    if (payment === undefined || others.length > 0 || payment.transaction_type !== "payment") {
      throw new ToolError("There should be exactly one payment for a pending order");
    }
    if (payment.payment_method_id === methodId) {
      throw new ToolError("The new payment method should be different from the current one");
    }
    const amount = payment.amount;
    requireCovers(method, amount, "Insufficient gift card balance to pay for the order");
    // τ² looks the old method up only after changing the order; checked first here so a failure changes nothing.
    getPaymentMethod(state, order.user_id, payment.payment_method_id);

    const changed = state.mutable("orders", orderId);
    changed.payment_history.push(
      { transaction_type: "payment", amount, payment_method_id: methodId },
      { transaction_type: "refund", amount, payment_method_id: payment.payment_method_id },
    );
    creditGiftCard(state, changed.user_id, methodId, -amount);
    creditGiftCard(state, changed.user_id, payment.payment_method_id, amount);
    return renderRecord("orders", changed);
  },

  modify_user_address: (state, args) => {
    const userId = str(args, "user_id");
    getUser(state, userId);
    const changed = state.mutable("users", userId);
    changed.address = addressFrom(args);
    return renderRecord("users", changed);
  },

  /** Unlike modify, τ² does not refuse exchanging an item for the same item id; neither does this. */
  exchange_delivered_order_items: (state, args) => {
    const swap = checkedSwap(state, args, {
      status: "delivered",
      wrongStatus: "Non-delivered order cannot be exchanged",
      notHeld: (itemId) => `Number of ${itemId} not found.`,
      countMismatch: "The number of items to be exchanged should match.",
      refuseSameItem: false,
    });
    const { orderId, itemIds, newItemIds, methodId, order } = swap;
    const difference = pyRound2(swap.difference);
    requireCovers(
      getPaymentMethod(state, order.user_id, methodId),
      difference,
      "Insufficient gift card balance to pay for the price difference",
    );

    const changed = state.mutable("orders", orderId);
    changed.status = "exchange requested";
    changed.exchange_items = [...itemIds].sort();
    changed.exchange_new_items = [...newItemIds].sort();
    changed.exchange_payment_method_id = methodId;
    changed.exchange_price_difference = difference;
    return renderRecord("orders", changed);
  },

  return_delivered_order_items: (state, args) => {
    const orderId = str(args, "order_id");
    const itemIds = list(args, "item_ids");
    const methodId = str(args, "payment_method_id");
    const order = getOrder(state, orderId);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be returned");
    const method = getPaymentMethod(state, order.user_id, methodId);
    if (method.source !== "gift_card") {
      const original = order.payment_history[0];
      if (original === undefined) throw new ToolError("list index out of range"); // τ²: IndexError on an empty history
      if (methodId !== original.payment_method_id) {
        throw new ToolError("Payment method should be the original payment method");
      }
    }
    checkItemsPresent(order, itemIds, () => "Some item not found");

    const changed = state.mutable("orders", orderId);
    changed.status = "return requested";
    changed.return_items = [...itemIds].sort();
    changed.return_payment_method_id = methodId;
    return renderRecord("orders", changed);
  },
};
