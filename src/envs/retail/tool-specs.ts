/**
 * The 16 retail tools as the model sees them (JSON-schema ToolSpecs) and as the environment checks their arguments.
 * Every argument is a string or a list of strings, all required, no others allowed.
 */

import { frozenJson } from "../../core";
import type { ToolSpec } from "../../models/types";

export type ToolKind = "read" | "write" | "generic";
type ArgType = "string" | "string[]";

interface ArgDef {
  name: string;
  type: ArgType;
  description: string;
}

/** An argument: a string, unless `type` says a list of strings. */
const argDef = (name: string, description: string, type: ArgType = "string"): ArgDef => ({
  name,
  type,
  description,
});

export interface RetailToolDef {
  name: string;
  kind: ToolKind;
  description: string;
  args: ArgDef[];
}

const orderId = argDef("order_id", "The order id, such as '#W0000000' (it starts with '#').");
const userId = argDef("user_id", "The user id, such as 'sara_doe_496'.");
const paymentMethodId = (use: string) =>
  argDef(
    "payment_method_id",
    `The id of one of the user's payment methods ${use}, such as 'gift_card_0000000' or 'credit_card_0000000' (see the user's or the order's details).`,
  );
const zip = argDef("zip", "Zip code, such as '12345'.");
const addressArgs: ArgDef[] = [
  argDef("address1", "First address line, such as '123 Main St'."),
  argDef("address2", "Second address line, such as 'Apt 1', or ''."),
  argDef("city", "City, such as 'San Francisco'."),
  argDef("state", "State, such as 'CA'."),
  argDef("country", "Country, such as 'USA'."),
  zip,
];
const itemIds = (what: string) =>
  argDef(
    "item_ids",
    `The item ids ${what}, each such as '1008292230'. An id may repeat when the order holds that item more than once.`,
    "string[]",
  );
const newItemIds = argDef(
  "new_item_ids",
  "The replacement item ids, one per entry of item_ids and in the same position; each must be an available variant of the same product.",
  "string[]",
);

export const RETAIL_TOOLS: readonly RetailToolDef[] = [
  {
    name: "calculate",
    kind: "generic",
    description:
      "Evaluate an arithmetic expression and return the result rounded to 2 decimals. The expression may contain only digits, the operators + - * /, parentheses, decimal points and spaces.",
    args: [
      {
        name: "expression",
        type: "string",
        description: "The expression, such as '2 + 2' or '(19.99 * 3) - 5'.",
      },
    ],
  },
  {
    name: "find_user_id_by_email",
    kind: "read",
    description:
      "Find a user's id from their email address (case-insensitive). Returns the user id or an error.",
    args: [{ name: "email", type: "string", description: "The email, such as 'someone@example.com'." }],
  },
  {
    name: "find_user_id_by_name_zip",
    kind: "read",
    description:
      "Find a user's id from their first name, last name and zip code (names case-insensitive, zip exact). Use it when the user cannot give their email. Returns the user id or an error.",
    args: [
      { name: "first_name", type: "string", description: "First name, such as 'John'." },
      { name: "last_name", type: "string", description: "Last name, such as 'Doe'." },
      zip,
    ],
  },
  {
    name: "get_order_details",
    kind: "read",
    description: "Get an order: its status, items, shipping address, fulfillments and payment history.",
    args: [orderId],
  },
  {
    name: "get_product_details",
    kind: "read",
    description:
      "Get a product and all its variants (item id, options, availability, price). The product id is not an item id.",
    args: [{ name: "product_id", type: "string", description: "The product id, such as '6086499569'." }],
  },
  {
    name: "get_item_details",
    kind: "read",
    description:
      "Get one item (a product variant): its options, availability and price. The item id is not a product id.",
    args: [{ name: "item_id", type: "string", description: "The item id, such as '6086499569'." }],
  },
  {
    name: "get_user_details",
    kind: "read",
    description:
      "Get a user's profile: name, address, email, payment methods (with gift card balances) and order ids.",
    args: [userId],
  },
  {
    name: "list_all_product_types",
    kind: "read",
    description:
      "List every product type in the store (50) as a JSON object from product name to product id, sorted by name.",
    args: [],
  },
  {
    name: "cancel_pending_order",
    kind: "write",
    description:
      "Cancel an order whose status is 'pending'. Every payment is refunded to its payment method (at once for a gift card, in 5-7 business days otherwise) and the status becomes 'cancelled'. State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [
      orderId,
      {
        name: "reason",
        type: "string",
        description: "Either 'no longer needed' or 'ordered by mistake'.",
      },
    ],
  },
  {
    name: "modify_pending_order_items",
    kind: "write",
    description:
      "Swap items of an order whose status is exactly 'pending' for other variants of the same products. The price difference is charged to, or refunded to, the given payment method (a gift card must cover a charge). The status becomes 'pending (item modified)', so this can be done only once per order: collect every change first. State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [
      orderId,
      itemIds("to change"),
      newItemIds,
      paymentMethodId("that pays or receives the price difference"),
    ],
  },
  {
    name: "modify_pending_order_address",
    kind: "write",
    description:
      "Change the shipping address of a pending order (status 'pending' or 'pending (item modified)'). State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [orderId, ...addressArgs],
  },
  {
    name: "modify_pending_order_payment",
    kind: "write",
    description:
      "Change the payment method of a pending order that has exactly one payment. The new method is charged the order amount and the old one refunded; a gift card must cover the amount. State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [orderId, paymentMethodId("to pay the order with instead")],
  },
  {
    name: "modify_user_address",
    kind: "write",
    description:
      "Change a user's default address. State the details and get the user's explicit confirmation first. Returns the updated user.",
    args: [userId, ...addressArgs],
  },
  {
    name: "exchange_delivered_order_items",
    kind: "write",
    description:
      "Request an exchange of items of a delivered order for other variants of the same products. The price difference will be settled with the given payment method (a gift card must cover it). The status becomes 'exchange requested', so a delivered order can be exchanged or returned only once: collect every item first. State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [
      orderId,
      itemIds("to exchange"),
      newItemIds,
      paymentMethodId("that pays or receives the price difference"),
    ],
  },
  {
    name: "return_delivered_order_items",
    kind: "write",
    description:
      "Request a return of items of a delivered order. The refund goes to the original payment method or to a gift card of the user. The status becomes 'return requested' and the user receives an email on how to send the items back. State the details and get the user's explicit confirmation first. Returns the updated order.",
    args: [orderId, itemIds("to return"), paymentMethodId("that receives the refund")],
  },
  {
    name: "transfer_to_human_agents",
    kind: "generic",
    description:
      "Transfer the user to a human agent, with a summary of their issue. Only when the user explicitly asks for a human, or when the request cannot be handled with the policy and the tools available.",
    args: [{ name: "summary", type: "string", description: "A summary of the user's issue." }],
  },
];

export const RETAIL_TOOL_BY_NAME: ReadonlyMap<string, RetailToolDef> = new Map(
  RETAIL_TOOLS.map((tool) => [tool.name, tool]),
);

export const RETAIL_WRITE_TOOLS: ReadonlySet<string> = new Set(
  RETAIL_TOOLS.filter((tool) => tool.kind === "write").map((tool) => tool.name),
);

function toToolSpec(tool: RetailToolDef): ToolSpec {
  const properties: Record<string, unknown> = {};
  for (const arg of tool.args) {
    properties[arg.name] =
      arg.type === "string"
        ? { type: "string", description: arg.description }
        : { type: "array", items: { type: "string" }, description: arg.description };
  }
  return {
    name: tool.name,
    description: tool.description,
    parameters: {
      type: "object",
      properties,
      required: tool.args.map((arg) => arg.name),
      additionalProperties: false,
    },
  };
}

/** Frozen, so no caller can change another rollout's tools, and canonicalised once for the request cache's key. */
const SPECS: readonly ToolSpec[] = RETAIL_TOOLS.map((tool) => frozenJson(toToolSpec(tool)));

/** The specs in a fresh array; the specs themselves are frozen (an edit throws). */
export function retailToolSpecs(): ToolSpec[] {
  return [...SPECS];
}

/** The arguments as typed strings, or the reason they do not fit the tool (missing, extra, wrong type). */
export function checkArguments(
  tool: RetailToolDef,
  args: unknown,
): { ok: true; values: Record<string, string | string[]> } | { ok: false; message: string } {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return { ok: false, message: `arguments of ${tool.name} must be a JSON object, got ${describe(args)}` };
  }
  const given = args as Record<string, unknown>;
  const known = new Set(tool.args.map((arg) => arg.name));
  const extra = Object.keys(given).filter((key) => !known.has(key));
  if (extra.length > 0) {
    return {
      ok: false,
      message: `unexpected argument(s) for ${tool.name}: ${extra.map((key) => `'${key}'`).join(", ")}`,
    };
  }
  const values: Record<string, string | string[]> = {};
  for (const arg of tool.args) {
    const value = given[arg.name];
    if (value === undefined)
      return { ok: false, message: `missing required argument '${arg.name}' for ${tool.name}` };
    const fits =
      arg.type === "string"
        ? typeof value === "string"
        : Array.isArray(value) && value.every((item) => typeof item === "string");
    if (!fits) {
      const wanted = arg.type === "string" ? "a string" : "a list of strings";
      return {
        ok: false,
        message: `argument '${arg.name}' of ${tool.name} must be ${wanted}, got ${describe(value)}`,
      };
    }
    values[arg.name] = arg.type === "string" ? (value as string) : [...(value as string[])];
  }
  return { ok: true, values };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}
