import { createOpenAIModel, isOpenAIReasoningModel, OPENAI_DEFAULT_BASE_URL } from "./openai";
import { hostedProvider, type ProviderDefinition } from "./provider";

/** OpenAI's Chat Completions, and any server that speaks it (vLLM, Ollama, LiteLLM …) through OPENAI_BASE_URL. */
export const openaiProvider: ProviderDefinition = {
  ...hostedProvider("openai", "OPENAI_API_KEY", {
    variable: "OPENAI_BASE_URL",
    default: OPENAI_DEFAULT_BASE_URL,
  }),
  // The reasoning models take no temperature or top_p but the default.
  defaults: (model) => (isOpenAIReasoningModel(model) ? { temperature: null, top_p: null } : {}),
  // OpenAI-compatible servers take one spelling of the token limit or the other, and some refuse a seed.
  fallbacks: { seed: true, tokenLimitField: true },
  create: ({ model, apiKey, baseURL, timeoutMs, env, maxTokensField }) =>
    createOpenAIModel({
      model,
      apiKey,
      baseURL,
      timeoutMs,
      maxTokensField,
      organization: env.OPENAI_ORG_ID ?? null,
      project: env.OPENAI_PROJECT_ID ?? null,
    }),
};
