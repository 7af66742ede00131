/**
 * The vendored τ² retail data (data/tau2-retail), read once per process. The database is validated against the schema and
 * deep-frozen: every environment shares this one copy, so nothing may ever write to it (a write throws in strict mode).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deepFreeze, HsearchError } from "../../core";
import { objectKeyOrders } from "./key-order";
import { COLLECTIONS, type RetailData, recordProblem } from "./schema";

const DATA_DIR = new URL("../../../data/tau2-retail/", import.meta.url);

/**
 * Key orders of the file that JS objects lose: product ids and variant (item) ids look like integers, which JS lists
 * first in numeric order. τ² iterates and prints them in file order.
 */
export interface RetailKeyOrder {
  readonly products: readonly string[];
  readonly variants: ReadonlyMap<string, readonly string[]>;
}

let cachedData: RetailData | undefined;
let cachedKeyOrder: RetailKeyOrder | undefined;
let cachedPolicy: string | undefined;

export function retailDataFile(name: "db.json" | "policy.md" | "tasks.json"): string {
  return fileURLToPath(new URL(name, DATA_DIR));
}

/** The frozen base database {products, users, orders}. */
export function loadRetailData(): RetailData {
  if (cachedData === undefined) load();
  return cachedData as RetailData;
}

export function retailKeyOrder(): RetailKeyOrder {
  if (cachedKeyOrder === undefined) load();
  return cachedKeyOrder as RetailKeyOrder;
}

function load(): void {
  const file = retailDataFile("db.json");
  const text = readText(file);
  const data = parseDatabase(text, file);
  cachedKeyOrder = keyOrderOf(text, data, file);
  cachedData = deepFreeze(data);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (cause) {
    throw new HsearchError("not_found", `cannot read the retail database: ${String(cause)}`, { file, cause });
  }
}

function keyOrderOf(text: string, data: RetailData, file: string): RetailKeyOrder {
  const orders = objectKeyOrders(text, {
    maxDepth: 3,
    within: ["products"],
    wanted: (path) =>
      path[0] === "products" && (path.length === 1 || (path.length === 3 && path[2] === "variants")),
  });
  const products = orders.get(JSON.stringify(["products"])) ?? [];
  checkSameKeys(products, Object.keys(data.products), file, "products");
  const variants = new Map<string, readonly string[]>();
  for (const [id, product] of Object.entries(data.products)) {
    const order = orders.get(JSON.stringify(["products", id, "variants"])) ?? [];
    checkSameKeys(order, Object.keys(product.variants), file, `products.${id}.variants`);
    variants.set(id, order);
  }
  return { products, variants };
}

function checkSameKeys(order: string[], keys: string[], file: string, field: string): void {
  const sorted = (list: string[]) => JSON.stringify([...list].sort());
  if (sorted(order) !== sorted(keys)) {
    throw new HsearchError("internal", "the key order read from the file does not match the parsed keys", {
      file,
      field,
    });
  }
}

/** The τ² retail agent policy (policy.md). */
export function retailPolicy(): string {
  if (cachedPolicy === undefined) cachedPolicy = readFileSync(retailDataFile("policy.md"), "utf8");
  return cachedPolicy;
}

function parseDatabase(text: string, file: string): RetailData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new HsearchError("bad_input", `the retail database is not valid JSON: ${String(cause)}`, {
      file,
      cause,
    });
  }
  if (parsed === null || typeof parsed !== "object") {
    throw new HsearchError("bad_input", "the retail database is not a JSON object", { file });
  }
  const db = parsed as Record<string, unknown>;
  for (const collection of COLLECTIONS) {
    const records = db[collection];
    if (records === null || typeof records !== "object" || Array.isArray(records)) {
      throw new HsearchError("bad_input", `'${collection}' is not an object`, { file, field: collection });
    }
    for (const [id, record] of Object.entries(records)) {
      const problem = recordProblem(collection, id, record);
      if (problem !== null)
        throw new HsearchError("bad_input", problem, { file, field: `${collection}.${id}` });
    }
  }
  return db as unknown as RetailData;
}
