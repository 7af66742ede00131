import { describe, expect, it } from "vitest";
import { HsearchError } from "../../src/core/errors";
import { ProviderCallError } from "../../src/models/provider-error";
import {
  backoffDelayMs,
  callWithRetry,
  DEFAULT_RETRY_OPTIONS,
  parseRetryAfterMs,
  type RetryOptions,
} from "../../src/models/retry";
import { hsearchFailureOf } from "../helpers/errors";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function recordingOptions(overrides: Partial<RetryOptions> = {}): { options: RetryOptions; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    options: {
      ...DEFAULT_RETRY_OPTIONS,
      baseDelayMs: 100,
      maxDelayMs: 1_000,
      sleep: async (ms) => {
        waits.push(ms);
      },
      now: () => NOW,
      ...overrides,
    },
  };
}

/** A call that fails with the given errors in turn, then returns "done". */
function failingThen(errors: Error[]): { call: () => Promise<string>; calls: () => number } {
  let count = 0;
  return {
    calls: () => count,
    call: async () => {
      const error = errors[count];
      count += 1;
      if (error) throw error;
      return "done";
    },
  };
}

const context = { label: "openai:test", random: () => 0.5 };
const http = (status: number, retryAfter = {}) =>
  new ProviderCallError("http", `HTTP ${status} nope`, { status, retryAfter });

describe("parseRetryAfterMs", () => {
  it("reads seconds, fractional seconds, milliseconds and HTTP dates", () => {
    expect(parseRetryAfterMs({ "retry-after": "2" }, NOW)).toBe(2000);
    expect(parseRetryAfterMs({ "retry-after": "0.5" }, NOW)).toBe(500);
    expect(parseRetryAfterMs({ "retry-after-ms": "150" }, NOW)).toBe(150);
    expect(parseRetryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, NOW)).toBe(5000);
  });

  it("prefers retry-after-ms over retry-after", () => {
    expect(parseRetryAfterMs({ "retry-after": "9", "retry-after-ms": "250" }, NOW)).toBe(250);
  });

  it("clamps a date in the past to 0 and ignores what it cannot read", () => {
    expect(parseRetryAfterMs({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, NOW)).toBe(0);
    expect(parseRetryAfterMs({ "retry-after": "soon" }, NOW)).toBeUndefined();
    expect(parseRetryAfterMs({ "retry-after": "-3" }, NOW)).toBeUndefined();
    expect(parseRetryAfterMs({}, NOW)).toBeUndefined();
  });
});

describe("backoffDelayMs", () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it("doubles per retry between half and all of the ceiling, capped at maxDelayMs", () => {
    expect(backoffDelayMs(1, options, () => 0)).toBe(50);
    expect(backoffDelayMs(1, options, () => 0.999999)).toBeCloseTo(100, 3);
    expect(backoffDelayMs(3, options, () => 0)).toBe(200);
    expect(backoffDelayMs(10, options, () => 0)).toBe(500);
    expect(backoffDelayMs(10, options, () => 0.999999)).toBeCloseTo(1_000, 2);
  });
});

describe("callWithRetry", () => {
  it("retries 429 and 5xx, waiting as the server asked or by backoff, then succeeds", async () => {
    const { options, waits } = recordingOptions();
    const script = failingThen([http(429, { "retry-after": "3" }), http(503), http(500)]);
    await expect(callWithRetry(script.call, options, context)).resolves.toBe("done");
    expect(script.calls()).toBe(4);
    // 3 s as asked; then backoff with jitter 0.5: ceilings 200 and 400 → 150 and 300.
    expect(waits).toEqual([3000, 150, 300]);
  });

  it("retries timeouts and broken connections", async () => {
    const { options } = recordingOptions();
    const script = failingThen([
      new ProviderCallError("timeout", "request timed out"),
      new ProviderCallError("connection", "connection failed: ECONNRESET"),
    ]);
    await expect(callWithRetry(script.call, options, context)).resolves.toBe("done");
    expect(script.calls()).toBe(3);
  });

  it("caps a long retry-after at maxRetryAfterMs", async () => {
    const { options, waits } = recordingOptions({ maxRetryAfterMs: 10_000 });
    const script = failingThen([http(429, { "retry-after": "3600" })]);
    await callWithRetry(script.call, options, context);
    expect(waits).toEqual([10_000]);
  });

  it.each([400, 401, 403, 404, 422])("fails at once on HTTP %i as a provider error", async (status) => {
    const { options, waits } = recordingOptions();
    const script = failingThen([http(status)]);
    const error = await hsearchFailureOf(callWithRetry(script.call, options, context));
    expect(error.code).toBe("provider");
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain("not retryable");
    expect(script.calls()).toBe(1);
    expect(waits).toEqual([]);
  });

  it("gives up after maxAttempts with a provider error naming the model and the count", async () => {
    const { options, waits } = recordingOptions({ maxAttempts: 3 });
    const script = failingThen([http(500), http(502), http(503), http(504)]);
    const error = await hsearchFailureOf(callWithRetry(script.call, options, context));
    expect(error.code).toBe("provider");
    expect(error.message).toBe("openai:test: HTTP 503 nope (gave up after 3 attempts)");
    expect(script.calls()).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it("re-asks after a model_reply error without waiting, up to maxReplyAttempts", async () => {
    const { options, waits } = recordingOptions({ maxReplyAttempts: 2 });
    const empty = () =>
      new HsearchError("model_reply", "openai:test: empty reply: no content and no tool calls");
    const recovered = failingThen([empty()]);
    await expect(callWithRetry(recovered.call, options, context)).resolves.toBe("done");

    const stuck = failingThen([empty(), empty(), empty()]);
    const error = await hsearchFailureOf(callWithRetry(stuck.call, options, context));
    expect(error.code).toBe("model_reply");
    expect(error.message).toContain("empty reply");
    expect(error.message).toContain("(2 attempts)");
    expect(stuck.calls()).toBe(2);
    expect(waits).toEqual([]);
  });

  it("passes other errors through untouched", async () => {
    const { options } = recordingOptions();
    const bug = new TypeError("a bug");
    const script = failingThen([bug]);
    await expect(callWithRetry(script.call, options, context)).rejects.toBe(bug);
    expect(script.calls()).toBe(1);
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    const { options } = recordingOptions({
      sleep: async () => {
        controller.abort(new Error("stopped by caller"));
      },
    });
    const script = failingThen([http(500), http(500)]);
    await expect(
      callWithRetry(script.call, options, { ...context, signal: controller.signal }),
    ).rejects.toThrow("stopped by caller");
    expect(script.calls()).toBe(1);
  });
});
