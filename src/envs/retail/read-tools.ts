/**
 * The read and generic tools. Each returns τ²'s answer text or throws ToolError with τ²'s message; none changes state.
 */
import { emailKey, nameZipKey } from "./base-index";
import { CalculateError, calculate } from "./calculate";
import { pyJsonDumps } from "./py-format";
import { renderCurrent } from "./render";
import { own } from "./schema";
import type { RetailState } from "./state";

/** A tool refused the call; the observation is `Error: <message>` and nothing changed. */
export class ToolError extends Error {}

export type ToolArgs = Record<string, string | string[]>;
export type ToolImpl = (state: RetailState, args: ToolArgs) => string;

const str = (args: ToolArgs, name: string): string => args[name] as string;

let baseProductTypes: string | undefined;

export const READ_TOOLS: Record<string, ToolImpl> = {
  calculate: (_state, args) => {
    try {
      return calculate(str(args, "expression"));
    } catch (error) {
      if (error instanceof CalculateError) throw new ToolError(error.message);
      throw error;
    }
  },

  find_user_id_by_email: (state, args) => {
    const key = emailKey(str(args, "email"));
    const found = state.findFirst(
      "users",
      state.base.usersByEmail.get(key),
      (user) => emailKey(user.email) === key,
    );
    if (found === undefined) throw new ToolError("User not found");
    return found;
  },

  find_user_id_by_name_zip: (state, args) => {
    const key = nameZipKey(str(args, "first_name"), str(args, "last_name"), str(args, "zip"));
    const found = state.findFirst(
      "users",
      state.base.usersByNameZip.get(key),
      (user) => nameZipKey(user.name.first_name, user.name.last_name, user.address.zip) === key,
    );
    if (found === undefined) throw new ToolError("User not found");
    return found;
  },

  get_order_details: (state, args) =>
    found(renderCurrent(state, "orders", str(args, "order_id")), "Order not found"),

  get_product_details: (state, args) =>
    found(renderCurrent(state, "products", str(args, "product_id")), "Product not found"),

  get_user_details: (state, args) =>
    found(renderCurrent(state, "users", str(args, "user_id")), "User not found"),

  get_item_details: (state, args) => {
    const itemId = str(args, "item_id");
    const productId = state.findFirst("products", state.base.productsByItem.get(itemId), (product) =>
      Object.hasOwn(product.variants, itemId),
    );
    const product = productId === undefined ? undefined : state.get("products", productId);
    const variant = product === undefined ? undefined : own(product.variants, itemId);
    if (variant === undefined) throw new ToolError("Item not found");
    return pyJsonDumps(variant);
  },

  list_all_product_types: (state) => {
    const unchanged = state.changed("products").size === 0;
    if (unchanged && baseProductTypes !== undefined) return baseProductTypes;
    // τ² builds {name: product_id} in iteration order (a repeated name keeps the last id), then sorts by name.
    const byName: Record<string, string> = Object.create(null);
    for (const [, product] of state.entries("products")) byName[product.name] = product.product_id;
    const text = pyJsonDumps(byName, { sortKeys: true });
    if (unchanged) baseProductTypes = text;
    return text;
  },

  transfer_to_human_agents: () => "Transfer successful",
};

function found(text: string | undefined, message: string): string {
  if (text === undefined) throw new ToolError(message);
  return text;
}
