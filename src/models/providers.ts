import { addToRegistry, HsearchError } from "../core";
import { anthropicProvider } from "./anthropic-provider";
import { openaiProvider } from "./openai-provider";
import type { ProviderDefinition } from "./provider";

/**
 * The providers every command knows, one module each; a new provider is one module and one line of this list. The
 * offline simulator and oracle sit above models in the layers: the composition root (api, cli) gives them to
 * createChatModel as extra providers (src/sim), and they get the same stack.
 */
export const PROVIDERS: ProviderDefinition[] = [openaiProvider, anthropicProvider];

/**
 * Add a provider from outside this list (an embedding program, a test): from then on every command and library call
 * takes its specs, `<name>:<model>`, in the same stack as a listed one. Returns what removes it again.
 */
export function registerProvider(provider: ProviderDefinition): () => void {
  if (!/^[a-z][a-z0-9_-]*$/.test(provider.name))
    throw new HsearchError(
      "bad_input",
      `provider name ${JSON.stringify(provider.name)}: a spec's prefix is lower-case letters, digits, _ and - (starting with a letter)`,
    );
  return addToRegistry(PROVIDERS, provider, { what: "a provider", nameOf: (known) => known.name });
}

/** The registered provider of a spec's prefix. */
export function providerNamed(name: string): ProviderDefinition | undefined {
  return PROVIDERS.find((provider) => provider.name === name);
}
