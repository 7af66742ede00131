/**
 * Retry with exponential backoff and jitter. Policy:
 * - Provider failures (HTTP 408, 409, 429, 5xx, timeouts, broken connections) are retried up to `maxAttempts` calls
 *   in total. The wait is the server's `retry-after-ms` or `retry-after` (seconds or HTTP date, capped at
 *   `maxRetryAfterMs`) when sent, else `baseDelayMs · 2^(n-1)` capped at `maxDelayMs`, with equal jitter.
 * - Other HTTP statuses (400, 401, 403, 404, 422, …) fail at once: asking again cannot help.
 * - Either way the final failure is `HsearchError("provider")`: infrastructure, never the agent's failure.
 * - `model_reply` errors (empty reply, tool arguments that are not an object, malformed body) are retried without
 *   waiting up to `maxReplyAttempts` calls in total, counted apart: a re-ask often gets a usable reply, and the bound
 *   stops a model that always answers badly from looping. The last one is rethrown as `model_reply`.
 * Time and jitter are injectable so tests neither sleep nor depend on chance.
 */
import { setTimeout as sleepFor } from "node:timers/promises";
import { createRng, HsearchError, isHsearchError } from "../core";
import type { ChatModelMiddleware } from "./middleware";
import {
  infraErrorClassOf,
  isRetryable,
  ProviderCallError,
  ProviderError,
  type RetryAfterHeaders,
} from "./provider-error";

export interface RetryOptions {
  /** Calls in total (first one included) for provider failures. */
  maxAttempts: number;
  /** Calls in total for model_reply errors. */
  maxReplyAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking for a longer wait than this is waited for this long. */
  maxRetryAfterMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 5,
  maxReplyAttempts: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  sleep: (ms, signal) => sleepFor(ms, undefined, signal ? { signal } : undefined),
  now: () => Date.now(),
};

/** Milliseconds to wait as the server asked, or undefined when it did not ask (or asked in an unreadable way). */
export function parseRetryAfterMs(headers: RetryAfterHeaders, nowMs: number): number | undefined {
  const millis = headers["retry-after-ms"]?.trim();
  if (millis) {
    const value = Number(millis);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers["retry-after"]?.trim();
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Backoff before retry number `retry` (1 = the first retry): half fixed, half jitter, so waits never collapse to 0. */
export function backoffDelayMs(
  retry: number,
  options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs">,
  random: () => number,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

export interface RetryContext {
  /** Names the failing thing in error messages, e.g. the model id. */
  label: string;
  /** Jitter source in [0, 1). */
  random: () => number;
  signal?: AbortSignal;
}

export async function callWithRetry<T>(
  call: () => Promise<T>,
  options: RetryOptions,
  context: RetryContext,
): Promise<T> {
  const { label, random, signal } = context;
  let providerAttempts = 0;
  let replyAttempts = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      signal?.throwIfAborted();
      if (isHsearchError(error, "model_reply")) {
        replyAttempts += 1;
        if (replyAttempts >= options.maxReplyAttempts) {
          throw new HsearchError(
            "model_reply",
            `${error.message} (${replyAttempts} attempt${replyAttempts === 1 ? "" : "s"})`,
          );
        }
        continue;
      }
      if (!(error instanceof ProviderCallError)) throw error;
      if (error.kind === "aborted") throw new ProviderError("other", `${label}: request aborted`);
      // Asking again with the same prompt cannot fit it in the window: the episode ends as the agent's failure.
      if (error.kind === "context_overflow")
        throw new HsearchError("context_overflow", `${label}: ${error.message}`);
      providerAttempts += 1;
      const errorClass = infraErrorClassOf(error);
      if (!isRetryable(error))
        throw new ProviderError(errorClass, `${label}: ${error.message} (not retryable)`, error.rejection);
      if (providerAttempts >= options.maxAttempts) {
        throw new ProviderError(
          errorClass,
          `${label}: ${error.message} (gave up after ${providerAttempts} attempts)`,
        );
      }
      const asked = parseRetryAfterMs(error.retryAfter, options.now());
      const wait =
        asked === undefined
          ? backoffDelayMs(providerAttempts, options, random)
          : Math.min(asked, options.maxRetryAfterMs);
      await options.sleep(wait, signal);
    }
  }
}

/** Retry middleware; jitter comes from the request's seed and repeat, so a replayed run waits the same way. */
export function withRetry(overrides: Partial<RetryOptions> = {}): ChatModelMiddleware {
  const options: RetryOptions = { ...DEFAULT_RETRY_OPTIONS, ...overrides };
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: (request, callOptions) => {
      const rng = createRng(request.seed, "retry", inner.id, request.repeat ?? 0);
      return callWithRetry(() => inner.generate(request, callOptions), options, {
        label: inner.id,
        random: () => rng.next(),
        signal: callOptions?.signal,
      });
    },
  });
}
