import { HsearchError } from "../core/errors";
import { offlineProvider, type ProviderDefinition } from "../models/provider";
import { createOracleModel, createSimModel } from "./sim-model";

export { createOracleModel, createSimModel, SimChatModel } from "./sim-model";

/**
 * The offline providers: `sim:<profile>` (default profile `default`) and `oracle`, extra providers of the composition
 * root (the models module knows nothing of the simulator), wrapped like every provider.
 */
export const offlineProviders: Record<string, ProviderDefinition> = {
  sim: offlineProvider("sim", (name) => createSimModel(name || "default")),
  oracle: offlineProvider("oracle", (name) => {
    if (name) throw new HsearchError("bad_input", `oracle takes no model name (got oracle:${name})`);
    return createOracleModel();
  }),
};
