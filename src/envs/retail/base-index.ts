/**
 * Lookup tables over the frozen base database, built once per process. τ² answers "find user by email" and "find item"
 * by scanning dicts in insertion order; these tables give the same first match without the scan. The copy-on-write state
 * combines them with the few records a rollout changed (see state.ts).
 */
import { loadRetailData, type RetailKeyOrder, retailKeyOrder } from "./data";
import { COLLECTIONS, type Collection, type RetailData } from "./schema";

export interface RetailBase {
  readonly data: RetailData;
  /** Record ids in the file's order, the order τ² iterates in. */
  readonly ids: Readonly<Record<Collection, readonly string[]>>;
  readonly position: Readonly<Record<Collection, ReadonlyMap<string, number>>>;
  /** Lower-cased email → user ids having it, in base order. */
  readonly usersByEmail: ReadonlyMap<string, readonly string[]>;
  /** nameZipKey → user ids, in base order. */
  readonly usersByNameZip: ReadonlyMap<string, readonly string[]>;
  /** item id → product ids that have the variant, in base order. */
  readonly productsByItem: ReadonlyMap<string, readonly string[]>;
}

let cached: RetailBase | undefined;

export function retailBase(): RetailBase {
  if (cached === undefined) cached = buildBase(loadRetailData(), retailKeyOrder());
  return cached;
}

export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** Names compare case-insensitively, the zip exactly (τ² find_user_id_by_name_zip). */
export function nameZipKey(firstName: string, lastName: string, zip: string): string {
  return `${firstName.toLowerCase()}\u0000${lastName.toLowerCase()}\u0000${zip}`;
}

function buildBase(data: RetailData, keyOrder: RetailKeyOrder): RetailBase {
  const ids = {} as Record<Collection, readonly string[]>;
  const position = {} as Record<Collection, Map<string, number>>;
  for (const collection of COLLECTIONS) {
    // Product ids look like integers, which JS objects reorder; user and order ids keep the file order.
    ids[collection] = collection === "products" ? keyOrder.products : Object.keys(data[collection]);
    position[collection] = new Map(ids[collection].map((id, index) => [id, index]));
  }
  const usersByEmail = new Map<string, string[]>();
  const usersByNameZip = new Map<string, string[]>();
  for (const id of ids.users) {
    const user = data.users[id] as RetailData["users"][string];
    push(usersByEmail, emailKey(user.email), user.user_id);
    push(
      usersByNameZip,
      nameZipKey(user.name.first_name, user.name.last_name, user.address.zip),
      user.user_id,
    );
  }
  const productsByItem = new Map<string, string[]>();
  for (const id of ids.products) {
    const product = data.products[id] as RetailData["products"][string];
    for (const itemId of Object.keys(product.variants)) push(productsByItem, itemId, product.product_id);
  }
  return { data, ids, position, usersByEmail, usersByNameZip, productsByItem };
}

function push(index: Map<string, string[]>, key: string, value: string): void {
  const list = index.get(key);
  if (list === undefined) index.set(key, [value]);
  else list.push(value);
}
