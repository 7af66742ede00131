import { anthropicProvider } from "./anthropic-provider";
import { openaiProvider } from "./openai-provider";
import type { ProviderDefinition } from "./provider";

/**
 * The providers every command knows, one module each; a new provider is one module and one line of this list. The
 * offline simulator and oracle are extra providers of the composition root (src/sim, cli/create-model.ts), given to
 * createChatModel the same way.
 */
export const PROVIDERS: ProviderDefinition[] = [openaiProvider, anthropicProvider];

/** Add a provider from outside this list (a test, an embedding program). */
export function registerProvider(provider: ProviderDefinition): void {
  if (PROVIDERS.some((known) => known.name === provider.name))
    throw new Error(`a provider named ${provider.name} is already registered`);
  PROVIDERS.push(provider);
}

/** The registered provider of a spec's prefix. */
export function providerNamed(name: string): ProviderDefinition | undefined {
  return PROVIDERS.find((provider) => provider.name === name);
}
