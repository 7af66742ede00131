/**
 * The shape of the τ² retail database (products, users, orders), as zod schemas so the vendored data and every record a
 * task overlay touches are checked once, loudly, instead of surfacing later as a crash inside a tool.
 */
import { z } from "zod";

export const ORDER_STATUSES = [
  "pending",
  "pending (item modified)",
  "processed",
  "delivered",
  "cancelled",
  "exchange requested",
  "return requested",
] as const;

export const CANCEL_REASONS = ["no longer needed", "ordered by mistake"] as const;

/**
 * Order fields that τ² models as optional and materialises as null. Listed in τ²'s model order, which is also the order
 * the tools print them in.
 */
export const OPTIONAL_ORDER_FIELDS = [
  "cancel_reason",
  "exchange_items",
  "exchange_new_items",
  "exchange_payment_method_id",
  "exchange_price_difference",
  "return_items",
  "return_payment_method_id",
] as const;

export const REQUIRED_ORDER_FIELDS = [
  "order_id",
  "user_id",
  "address",
  "items",
  "status",
  "fulfillments",
  "payment_history",
] as const;

const addressSchema = z.strictObject({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});

const variantSchema = z.strictObject({
  item_id: z.string(),
  options: z.record(z.string(), z.string()),
  available: z.boolean(),
  price: z.number(),
});

export const productSchema = z.strictObject({
  name: z.string(),
  product_id: z.string(),
  variants: z.record(z.string(), variantSchema),
});

const paymentMethodSchema = z.discriminatedUnion("source", [
  z.strictObject({
    source: z.literal("credit_card"),
    id: z.string(),
    brand: z.string(),
    last_four: z.string(),
  }),
  z.strictObject({ source: z.literal("gift_card"), id: z.string(), balance: z.number() }),
  z.strictObject({ source: z.literal("paypal"), id: z.string() }),
]);

export const userSchema = z.strictObject({
  user_id: z.string(),
  name: z.strictObject({ first_name: z.string(), last_name: z.string() }),
  address: addressSchema,
  email: z.string(),
  payment_methods: z.record(z.string(), paymentMethodSchema),
  orders: z.array(z.string()),
});

const orderItemSchema = z.strictObject({
  name: z.string(),
  product_id: z.string(),
  item_id: z.string(),
  price: z.number(),
  options: z.record(z.string(), z.string()),
});

export const orderSchema = z.strictObject({
  order_id: z.string(),
  user_id: z.string(),
  address: addressSchema,
  items: z.array(orderItemSchema),
  status: z.enum(ORDER_STATUSES),
  fulfillments: z.array(z.strictObject({ tracking_id: z.array(z.string()), item_ids: z.array(z.string()) })),
  payment_history: z.array(
    z.strictObject({
      transaction_type: z.enum(["payment", "refund"]),
      amount: z.number(),
      payment_method_id: z.string(),
    }),
  ),
  cancel_reason: z.enum(CANCEL_REASONS).nullish(),
  exchange_items: z.array(z.string()).nullish(),
  exchange_new_items: z.array(z.string()).nullish(),
  exchange_payment_method_id: z.string().nullish(),
  exchange_price_difference: z.number().nullish(),
  return_items: z.array(z.string()).nullish(),
  return_payment_method_id: z.string().nullish(),
});

export type Address = z.infer<typeof addressSchema>;
export type Variant = z.infer<typeof variantSchema>;
export type Product = z.infer<typeof productSchema>;
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;
export type User = z.infer<typeof userSchema>;
export type OrderItem = z.infer<typeof orderItemSchema>;
export type Order = z.infer<typeof orderSchema>;
export type OrderStatus = Order["status"];

export interface RetailRecords {
  products: Product;
  users: User;
  orders: Order;
}
export type Collection = keyof RetailRecords;
/** Sorted, so that loops over collections visit them in canonical order. */
export const COLLECTIONS: readonly Collection[] = ["orders", "products", "users"];

export const recordSchemas = { products: productSchema, users: userSchema, orders: orderSchema } as const;

/** The whole database; the base copy is deep-frozen. */
export interface RetailData {
  readonly products: Readonly<Record<string, Product>>;
  readonly users: Readonly<Record<string, User>>;
  readonly orders: Readonly<Record<string, Order>>;
}

/** `record[key]` when it is the record's own member: ids come from the model, and "constructor" must not find a function. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function isCollection(value: unknown): value is Collection {
  return value === "products" || value === "users" || value === "orders";
}

/** Why a record does not fit its schema, or null when it does. */
export function recordProblem(collection: Collection, id: string, record: unknown): string | null {
  const result = recordSchemas[collection].safeParse(record);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue ? issue.path.join(".") : "";
    return `${collection}[${id}]${where ? `.${where}` : ""}: ${issue?.message ?? "invalid"}`;
  }
  const key = collection === "products" ? "product_id" : collection === "users" ? "user_id" : "order_id";
  const ownId = (record as Record<string, unknown>)[key];
  return ownId === id
    ? null
    : `${collection}[${id}].${key}: is ${JSON.stringify(ownId)}, expected the record's key`;
}
