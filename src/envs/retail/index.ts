/** The retail environment (τ²-bench retail semantics): data, tools, copy-on-write rollout state, hash and verifier. */
export { loadRetailData, retailDataFile, retailPolicy } from "./data";
export { createRetailEnv, type RetailEnvironment, type RetailEnvOptions, TRANSFER_TOOL } from "./environment";
export { retailDbHash } from "./hash";
export type { Address, Order, OrderItem, PaymentMethod, Product, RetailData, User, Variant } from "./schema";
export { RETAIL_WRITE_TOOLS, retailToolSpecs } from "./tool-specs";
export { expectedRetailHash, missingCommunicate, replayRetailActions, verifyRetail } from "./verify";
