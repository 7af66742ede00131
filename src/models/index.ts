/** The public entry of src/models: what other modules of src/ import from it (src/README.md, the import rule). */
export { openRequestCache, requestCacheFile } from "./cache";
export { Semaphore } from "./limiter";
export type { LearntRejection, RejectionMemory } from "./parameter-fallback";
export { createRejectionMemory, describeRejection } from "./parameter-fallback";
export type { CallCost, PriceTable } from "./prices";
export { costOf, DEFAULT_PRICES_PATH, loadPriceTable } from "./prices";
export type { ParameterFallbacks, ProviderClientOptions, ProviderDefinition } from "./provider";
export { offlineProvider } from "./provider";
export type { InfraErrorClass } from "./provider-error";
export { ProviderCallError, ProviderError } from "./provider-error";
export { PROVIDERS, registerProvider } from "./providers";
export type { CreateChatModelOptions } from "./registry";
export { createChatModel, parseModelSpec, providerOf } from "./registry";
export { DEFAULT_MAX_REPLY_CHARS, DEFAULT_TIMEOUT_MS } from "./reply-limit";
export type { ModelUsageRow, RoleModelOptions, RoleModels, RoleSpecs } from "./roles";
export {
  createRoleModels,
  customerModelSpec,
  isRealModelSpec,
  judgeModelSpec,
  mergeUsageRows,
  roleMeters,
  usageRowsOf,
} from "./roles";
export type { ModelRole, ModelSettings, RoleModelBlocks } from "./settings";
export { MODEL_ROLES, modelSettingsSchema, roleModelsSchema, settingsByRole } from "./settings";
export type { RoleUsage } from "./usage";
export { addRoleUsage, formatUsd, UsageMeter } from "./usage";
