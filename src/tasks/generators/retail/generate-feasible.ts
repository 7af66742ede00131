/**
 * A seeded generator of feasible retail tasks from the τ² database: one write per task (cancel, modify items / address /
 * payment of a pending order, exchange or return delivered items, change a user's address), with the reads a careful
 * agent makes first, a customer scenario and the customer's opening message.
 */

import { createRng, HsearchError, type Rng } from "../../../core";
import type { CustomerScenario, RetailTask, Split, ToolCallSpec } from "../../../domain";
import type { Address, Order, OrderItem, PaymentMethod, RetailData, User, Variant } from "../../../envs";
import {
  describeAddress,
  describeChange,
  describeItem,
  describePayment,
  fullName,
  joinAnd,
} from "./describe";
import { greeting, requestFromReason } from "./first-person";

export const FEASIBLE_OPS = [
  "cancel",
  "modify_items",
  "modify_address",
  "modify_payment",
  "exchange",
  "return",
  "user_address",
] as const;
export type FeasibleOp = (typeof FEASIBLE_OPS)[number];

export const GENERATED_ID_PREFIX = "retail-gen-";

/** `retail-gen-cancel-0007`: readable, and stable as long as the op and its counter are. */
export function generatedTaskId(op: FeasibleOp, number: number): string {
  return `${GENERATED_ID_PREFIX}${op.replace("_", "-")}-${String(number).padStart(4, "0")}`;
}

export interface GenerateFeasibleOptions {
  seed: number;
  count: number;
  split?: Split;
  /** Orders and users the generated tasks must not touch (e.g. those of imported τ² tasks). */
  excludeOrders?: ReadonlySet<string>;
  excludeUsers?: ReadonlySet<string>;
}

/** What one op builder decides; the task is assembled from it. */
interface Draft {
  user: User;
  /** Reads between authentication and the write. */
  reads: ToolCallSpec[];
  write: ToolCallSpec;
  /** The request, second person, as τ² scenarios are written. */
  reason: string;
  order?: Order;
}

interface Context {
  data: RetailData;
  usedOrders: Set<string>;
  usedUsers: ReadonlySet<string>;
  orders: readonly Order[];
  users: readonly User[];
}

/**
 * `count` tasks, cycling through the ops in FEASIBLE_OPS order; the n-th task of an op draws from
 * createRng(seed, "retail-gen", op, n), and no two tasks touch the same order.
 */
export function generateFeasibleTasks(data: RetailData, options: GenerateFeasibleOptions): RetailTask[] {
  const usedOrders = new Set(options.excludeOrders ?? []);
  const ctx: Context = {
    data,
    usedOrders,
    usedUsers: options.excludeUsers ?? new Set(),
    orders: Object.keys(data.orders)
      .sort()
      .map((id) => data.orders[id] as Order),
    users: Object.keys(data.users)
      .sort()
      .map((id) => data.users[id] as User),
  };
  const counters = new Map<FeasibleOp, number>();
  const tasks: RetailTask[] = [];
  for (let index = 0; index < options.count; index++) {
    const op = FEASIBLE_OPS[index % FEASIBLE_OPS.length] as FeasibleOp;
    const number = (counters.get(op) ?? 0) + 1;
    counters.set(op, number);
    const rng = createRng(options.seed, "retail-gen", op, number);
    const draft = BUILDERS[op](ctx, rng);
    if (draft.order) usedOrders.add(draft.order.order_id);
    tasks.push(assemble(generatedTaskId(op, number), draft, rng, options.split ?? "search"));
  }
  return tasks;
}

function assemble(id: string, draft: Draft, rng: Rng, split: Split): RetailTask {
  const { user } = draft;
  const byEmail = rng.chance(0.5);
  const auth: ToolCallSpec = byEmail
    ? { name: "find_user_id_by_email", arguments: { email: user.email } }
    : {
        name: "find_user_id_by_name_zip",
        arguments: {
          first_name: user.name.first_name,
          last_name: user.name.last_name,
          zip: user.address.zip,
        },
      };
  const scenario: CustomerScenario = {
    reason_for_call: draft.reason,
    known_info: byEmail
      ? `You are ${fullName(user)} and your email is ${user.email}.`
      : `You are ${fullName(user)} in zip code ${user.address.zip}.`,
    ...(byEmail ? {} : { unknown_info: "You do not remember your email address." }),
    task_instructions:
      "You are polite and to the point. You want exactly the change described above and agree when the agent states those details and asks you to go ahead.",
  };
  const hello = greeting(
    byEmail
      ? { name: fullName(user), emails: [user.email] }
      : { name: fullName(user), emails: [], zip: user.address.zip },
  );
  const steps = [auth, ...draft.reads, draft.write];
  return {
    id,
    suite: "retail",
    split,
    kind: "feasible",
    instruction: `${hello} ${requestFromReason(draft.reason)}`,
    user: scenario,
    env: {},
    reference: { actions: structuredClone(steps), communicate: [] },
    verify: { kind: "retail_db" },
    forbidden: {},
    sim: { steps, say: [] },
  };
}

const BUILDERS: Record<FeasibleOp, (ctx: Context, rng: Rng) => Draft> = {
  cancel(ctx, rng) {
    const order = pickOrder(ctx, rng, "cancel", (o) => o.status === "pending");
    const reason = rng.pick(["no longer needed", "ordered by mistake"] as const);
    const because = reason === "no longer needed" ? "you no longer need it" : "you ordered it by mistake";
    return orderDraft(ctx, order, {
      name: "cancel_pending_order",
      arguments: { reason },
      reason: `You want to cancel your pending order ${order.order_id} (${itemList(order)}) because ${because}.`,
    });
  },

  modify_items(ctx, rng) {
    return itemChange(
      ctx,
      rng,
      "modify_items",
      "pending",
      "modify_pending_order_items",
      (order, item) => `You want to change ${item} in your pending order ${order.order_id} to`,
    );
  },

  modify_address(ctx, rng) {
    const order = pickOrder(ctx, rng, "modify_address", (o) => o.status === "pending");
    const address = pickOtherAddress(ctx, rng, order.address);
    return orderDraft(ctx, order, {
      name: "modify_pending_order_address",
      arguments: addressArguments(address),
      reason: `You want your pending order ${order.order_id} shipped to ${describeAddress(address)} instead of ${describeAddress(order.address)}.`,
    });
  },

  modify_payment(ctx, rng) {
    const order = pickOrder(
      ctx,
      rng,
      "modify_payment",
      (o) => o.status === "pending" && o.payment_history.length === 1 && paymentSwitches(ctx, o).length > 0,
    );
    const method = rng.pick(paymentSwitches(ctx, order));
    const user = ownerOf(ctx, order);
    const current = user.payment_methods[order.payment_history[0]?.payment_method_id ?? ""];
    const currentText = current ? describePayment(current) : "the original payment method";
    return orderDraft(ctx, order, {
      reads: [{ name: "get_user_details", arguments: { user_id: user.user_id } }, getOrder(order)],
      name: "modify_pending_order_payment",
      arguments: { payment_method_id: method.id },
      reason: `You want to pay for your pending order ${order.order_id} with ${describePayment(method)} instead of ${currentText}.`,
    });
  },

  exchange(ctx, rng) {
    return itemChange(
      ctx,
      rng,
      "exchange",
      "delivered",
      "exchange_delivered_order_items",
      (order, item) => `You received your order ${order.order_id} and want to exchange ${item} for`,
    );
  },

  return(ctx, rng) {
    const order = pickOrder(
      ctx,
      rng,
      "return",
      (o) => o.status === "delivered" && refundMethods(ctx, o).length > 0,
    );
    const distinct = uniqueItems(order);
    const items = rng.shuffle(distinct).slice(0, Math.min(distinct.length, 1 + rng.int(2)));
    items.sort((a, b) => distinct.indexOf(a) - distinct.indexOf(b));
    const method = rng.pick(refundMethods(ctx, order));
    return orderDraft(ctx, order, {
      name: "return_delivered_order_items",
      arguments: { item_ids: items.map((i) => i.item_id), payment_method_id: method.id },
      reason:
        `You received your order ${order.order_id} and want to return ${joinAnd(items.map(describeItem))}, ` +
        `with the refund going to ${describePayment(method)}.`,
    });
  },

  user_address(ctx, rng) {
    const candidates = ctx.users.filter((u) => !ctx.usedUsers.has(u.user_id));
    const user = rng.pick(candidates);
    const address = pickOtherAddress(ctx, rng, user.address);
    return {
      user,
      reads: [{ name: "get_user_details", arguments: { user_id: user.user_id } }],
      write: {
        name: "modify_user_address",
        arguments: { user_id: user.user_id, ...addressArguments(address) },
      },
      reason: `You have moved and want your default address changed to ${describeAddress(address)}.`,
    };
  },
};

function pickOrder(ctx: Context, rng: Rng, op: FeasibleOp, fits: (order: Order) => boolean): Order {
  const candidates = ctx.orders.filter(
    (order) => !ctx.usedOrders.has(order.order_id) && !ctx.usedUsers.has(order.user_id) && fits(order),
  );
  if (candidates.length === 0)
    throw new HsearchError("internal", `no order left to generate a '${op}' task from`);
  return rng.pick(candidates);
}

function ownerOf(ctx: Context, order: Order): User {
  const user = ctx.data.users[order.user_id];
  if (!user) throw new HsearchError("internal", `order ${order.order_id} has no user '${order.user_id}'`);
  return user;
}

/** A write to one order by its owner, the order's id its first argument; the reads default to the order's details. */
function orderDraft(
  ctx: Context,
  order: Order,
  write: { name: string; arguments: Record<string, unknown>; reason: string; reads?: ToolCallSpec[] },
): Draft {
  return {
    user: ownerOf(ctx, order),
    order,
    reads: write.reads ?? [getOrder(order)],
    write: { name: write.name, arguments: { order_id: order.order_id, ...write.arguments } },
    reason: write.reason,
  };
}

function getOrder(order: Order): ToolCallSpec {
  return { name: "get_order_details", arguments: { order_id: order.order_id } };
}

function getProduct(item: OrderItem): ToolCallSpec {
  return { name: "get_product_details", arguments: { product_id: item.product_id } };
}

function itemList(order: Order): string {
  return joinAnd(uniqueItems(order).map((item) => item.name));
}

/** Order items with distinct item ids, in order. */
export function uniqueItems(order: Order): OrderItem[] {
  const seen = new Set<string>();
  return order.items.filter((item) => !seen.has(item.item_id) && seen.add(item.item_id));
}

/** Available variants of the item's product other than the item itself, by item id. */
export function alternativeVariants(data: RetailData, item: OrderItem): Variant[] {
  const variants = data.products[item.product_id]?.variants ?? {};
  return Object.keys(variants)
    .sort()
    .flatMap((id) => {
      const variant = variants[id];
      return variant?.available && variant.item_id !== item.item_id ? [variant] : [];
    });
}

/** Methods that can settle a price difference: any non-gift-card method, or a gift card that covers it. */
function settlingMethods(user: User, difference: number): PaymentMethod[] {
  return Object.keys(user.payment_methods)
    .sort()
    .map((id) => user.payment_methods[id] as PaymentMethod)
    .filter((method) => method.source !== "gift_card" || method.balance >= Math.max(difference, 0));
}

/**
 * One item for another variant of it (a pending order's items modified, a delivered order's exchanged), the price
 * difference settled with one of the user's methods; `wanted` opens the customer's reason.
 */
function itemChange(
  ctx: Context,
  rng: Rng,
  op: FeasibleOp,
  status: "pending" | "delivered",
  write: string,
  wanted: (order: Order, item: string) => string,
): Draft {
  const { order, item, variant, method } = pickItemChange(ctx, rng, op, status);
  const change = describeChange(item.options, variant.options);
  return orderDraft(ctx, order, {
    reads: [getOrder(order), getProduct(item)],
    name: write,
    arguments: { item_ids: [item.item_id], new_item_ids: [variant.item_id], payment_method_id: method.id },
    reason:
      `${wanted(order, describeItem(item))} the one with ${change.to} instead of ${change.from}, everything else ` +
      `the same. Any price difference should be settled with ${describePayment(method)}.`,
  });
}

function pickItemChange(ctx: Context, rng: Rng, op: FeasibleOp, status: "pending" | "delivered") {
  const order = pickOrder(
    ctx,
    rng,
    op,
    (o) =>
      o.status === status && uniqueItems(o).some((item) => alternativeVariants(ctx.data, item).length > 0),
  );
  const item = rng.pick(uniqueItems(order).filter((i) => alternativeVariants(ctx.data, i).length > 0));
  const user = ownerOf(ctx, order);
  const affordable = alternativeVariants(ctx.data, item).filter(
    (variant) => settlingMethods(user, variant.price - item.price).length > 0,
  );
  if (affordable.length === 0) throw new HsearchError("internal", `no payable variant for ${item.item_id}`);
  const variant = rng.pick(affordable);
  const method = rng.pick(settlingMethods(user, variant.price - item.price));
  return { order, item, variant, method };
}

/** Methods a pending order's single payment can move to: another of the user's, a gift card only if it covers it. */
function paymentSwitches(ctx: Context, order: Order): PaymentMethod[] {
  const payment = order.payment_history[0];
  if (!payment) return [];
  const user = ownerOf(ctx, order);
  return settlingMethods(user, payment.amount).filter((method) => method.id !== payment.payment_method_id);
}

/** A return refunds to the original payment method or to one of the user's gift cards. */
function refundMethods(ctx: Context, order: Order): PaymentMethod[] {
  const user = ownerOf(ctx, order);
  const original = order.payment_history[0]?.payment_method_id;
  return Object.keys(user.payment_methods)
    .sort()
    .map((id) => user.payment_methods[id] as PaymentMethod)
    .filter((method) => method.id === original || method.source === "gift_card");
}

function pickOtherAddress(ctx: Context, rng: Rng, current: Address): Address {
  for (;;) {
    const address = rng.pick(ctx.users).address;
    if (describeAddress(address) !== describeAddress(current)) return address;
  }
}

function addressArguments(address: Address): Record<string, string> {
  return {
    address1: address.address1,
    address2: address.address2,
    city: address.city,
    state: address.state,
    country: address.country,
    zip: address.zip,
  };
}
