import type { ChatModel } from "./types";

/** A layer around a model (retry, limiter, usage, cache), after the AI SDK's wrapLanguageModel middleware. */
export type ChatModelMiddleware = (inner: ChatModel) => ChatModel;
