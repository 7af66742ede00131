import { HsearchError } from "../core/errors";
import type { ChatModel } from "../models/types";
import { createOracleModel, createSimModel } from "./sim-model";

export { createOracleModel, createSimModel, SimChatModel } from "./sim-model";

/** The offline providers: `sim:<profile>` (default profile `default`) and `oracle`. */
export const offlineProviders: Record<string, (name: string) => ChatModel> = {
  sim: (name) => createSimModel(name || "default"),
  oracle: (name) => {
    if (name) throw new HsearchError("bad_input", `oracle takes no model name (got oracle:${name})`);
    return createOracleModel();
  },
};
