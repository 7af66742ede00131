import type { ProviderDefinition } from "../models";
import { oracleProvider, simProvider } from "./sim-provider";

export { createOracleModel, createSimModel, SimChatModel } from "./sim-model";
export { oracleProvider, simProvider } from "./sim-provider";

/**
 * The offline providers, `sim` and `oracle`, by prefix: the composition root (api, cli) gives them to createChatModel
 * as extra providers, since the layers put the simulator above models. createChatModel wraps them like any provider.
 */
export const offlineProviders: Record<string, ProviderDefinition> = Object.fromEntries(
  [simProvider, oracleProvider].map((provider) => [provider.name, provider]),
);
