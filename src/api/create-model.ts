import { type CreateChatModelOptions, createChatModel } from "../models";
import type { ChatModel } from "../models/types";
import { offlineProviders } from "../sim";

/**
 * Any model spec hsearch accepts: `openai:…` and `anthropic:…` from the provider registry, `sim:<profile>` and
 * `oracle` registered here as extra providers. The composition root: the registry knows nothing of the simulator.
 */
export function createModel(spec: string, options: CreateChatModelOptions = {}): ChatModel {
  return createChatModel(spec, {
    ...options,
    extraProviders: { ...offlineProviders, ...options.extraProviders },
  });
}
