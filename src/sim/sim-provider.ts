import { HsearchError } from "../core";
import { offlineProvider, type ProviderDefinition } from "../models";
import { createOracleModel, createSimModel } from "./sim-model";

/** `sim:<profile>` (default profile `default`): the seeded behavioural simulator; its figures are the simulator's. */
export const simProvider: ProviderDefinition = {
  ...offlineProvider("sim", (name) => createSimModel(name || "default")),
  label: "simulator",
};

/** `oracle`: the simulator with the perfect profile, replaying each task's reference solution. */
export const oracleProvider: ProviderDefinition = {
  ...offlineProvider("oracle", (name) => {
    if (name) throw new HsearchError("bad_input", `oracle takes no model name (got oracle:${name})`);
    return createOracleModel();
  }),
  label: "oracle",
};
