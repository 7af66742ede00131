/**
 * Records as τ² prints them and as the canonical hash sees them. An order always carries its seven optional fields
 * (null when absent), in τ²'s model order; other records keep their own key order.
 */
import { retailKeyOrder } from "./data";
import { pyJsonDumps } from "./py-format";
import {
  type Collection,
  OPTIONAL_ORDER_FIELDS,
  type Order,
  type Product,
  REQUIRED_ORDER_FIELDS,
  type RetailRecords,
} from "./schema";
import type { RetailState } from "./state";

const ORDER_FIELDS: readonly string[] = [...REQUIRED_ORDER_FIELDS, ...OPTIONAL_ORDER_FIELDS];

/** The order with every model field present (absent optional ones as null), in model order. */
export function orderView(order: Readonly<Order>): Record<string, unknown> {
  const source = order as Readonly<Record<string, unknown>>;
  const view: Record<string, unknown> = {};
  for (const field of ORDER_FIELDS) view[field] = source[field] ?? null;
  return view;
}

export function recordView<C extends Collection>(collection: C, record: Readonly<RetailRecords[C]>): unknown {
  return collection === "orders" ? orderView(record as Readonly<Order>) : record;
}

export function renderRecord<C extends Collection>(
  collection: C,
  record: Readonly<RetailRecords[C]>,
): string {
  if (collection !== "products") return pyJsonDumps(recordView(collection, record));
  const product = record as Readonly<Product>;
  return pyJsonDumps(product, {
    keyOrder: (object) => (object === product.variants ? variantOrder(product) : undefined),
  });
}

/** The file's variant order (JS would list these integer-like ids numerically); variants added later come last. */
function variantOrder(product: Readonly<Product>): string[] {
  const fileOrder = retailKeyOrder().variants.get(product.product_id) ?? [];
  const present = fileOrder.filter((id) => Object.hasOwn(product.variants, id));
  const known = new Set(present);
  return [...present, ...Object.keys(product.variants).filter((id) => !known.has(id))];
}

const baseRenderCache: { [C in Collection]: Map<string, string> } = {
  products: new Map(),
  users: new Map(),
  orders: new Map(),
};

/**
 * The tool output for one record of the current state. Base records are frozen, so their text is computed once per
 * process and shared by every rollout; a record this rollout changed is rendered afresh.
 */
export function renderCurrent<C extends Collection>(
  state: RetailState,
  collection: C,
  id: string,
): string | undefined {
  const record = state.get(collection, id);
  if (record === undefined) return undefined;
  if (state.changed(collection).has(id)) return renderRecord(collection, record);
  const cache = baseRenderCache[collection];
  let text = cache.get(id);
  if (text === undefined) {
    text = renderRecord(collection, record);
    cache.set(id, text);
  }
  return text;
}
