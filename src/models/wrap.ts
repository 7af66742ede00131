/**
 * Composition of a provider with its middleware, after the AI SDK's wrapLanguageModel. The standard stack, outermost
 * first: cached-call meter → settings → parameter fallback → cache → retry → reply limit → billed-call meter → limiter →
 * provider.
 * - the meter counts cache hits outermost (apart, not billed) and billed calls inside the retry loop, so every
 *   answered attempt counts as the provider bills it, an unusable or oversized reply that was re-asked included;
 * - the parameter fallback inside settings (it drops what a setting sent and the model rejects) and outside the cache
 *   and retry, so the cache keys on what is really sent and a rejected call is asked again as a new request;
 * - cache outside retry, so a hit skips retries and the limiter, and only a validated success is stored;
 * - retry outside the limiter, so a call sleeping in backoff frees its slot for others;
 * - the reply limit inside retry, so an oversized reply is re-asked like any unusable one and never cached.
 */
import { type RequestCache, withCache } from "./cache";
import { type Semaphore, withLimiter } from "./limiter";
import type { ChatModelMiddleware } from "./middleware";
import { withReplyLimit } from "./reply-limit";
import { type RetryOptions, withRetry } from "./retry";
import type { ChatModel } from "./types";
import { type UsageMeter, withBilledCalls, withCachedCalls } from "./usage";

/** Apply middleware; the first in the list is the outermost layer. */
export function wrapChatModel(model: ChatModel, middleware: readonly ChatModelMiddleware[]): ChatModel {
  const wrapped = middleware.reduceRight((inner, layer) => layer(inner), model);
  // A layer forwards id, provider and generate; what the model is (ChatModel's flags) is kept here, once.
  if (!model.followsReference || wrapped.followsReference) return wrapped;
  return {
    id: wrapped.id,
    provider: wrapped.provider,
    followsReference: true,
    generate: (request, options) => wrapped.generate(request, options),
  };
}

export interface ProviderStackOptions {
  meter?: UsageMeter;
  /** The role's settings (settings.ts), applied outside the cache so that it keys on what is sent. */
  settings?: ChatModelMiddleware;
  /** The parameter fallback (parameter-fallback.ts): drops a parameter the provider rejects, learnt per model. */
  fallback?: ChatModelMiddleware;
  /** `endpoint` (the base URL without credentials) is part of the cache key. */
  cache?: { cache: RequestCache; endpoint: string };
  retry?: Partial<RetryOptions>;
  limiter?: Semaphore;
  /** Characters one reply may hold (default DEFAULT_MAX_REPLY_CHARS). */
  maxReplyChars?: number;
}

export function withProviderStack(provider: ChatModel, options: ProviderStackOptions): ChatModel {
  const layers: ChatModelMiddleware[] = [];
  if (options.meter) layers.push(withCachedCalls(options.meter));
  if (options.settings) layers.push(options.settings);
  if (options.fallback) layers.push(options.fallback);
  if (options.cache) layers.push(withCache(options.cache.cache, options.cache.endpoint));
  layers.push(withRetry(options.retry), withReplyLimit(options.maxReplyChars));
  if (options.meter) layers.push(withBilledCalls(options.meter));
  if (options.limiter) layers.push(withLimiter(options.limiter));
  return wrapChatModel(provider, layers);
}
