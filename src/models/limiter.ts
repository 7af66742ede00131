/**
 * A concurrency limit per provider: a FIFO semaphore, shared through a pool by every model of one provider and base
 * URL, so two models on the same server never exceed its limit together.
 */
import { HsearchError } from "../core/errors";
import type { ChatModelMiddleware } from "./middleware";

export class Semaphore {
  readonly limit: number;
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new HsearchError("bad_input", `concurrency limit must be a positive integer, got ${limit}`);
    }
    this.limit = limit;
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is free; rejects if the signal aborts while waiting. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", onAbort);
        this.running += 1;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const index = this.queue.indexOf(grant);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.queue.shift()?.();
    };
  }
}

/** One semaphore per key (`provider|baseURL`). Asking for a key again with another limit is a configuration conflict. */
export class LimiterPool {
  private readonly semaphores = new Map<string, Semaphore>();

  get(key: string, limit: number): Semaphore {
    const existing = this.semaphores.get(key);
    if (existing) {
      if (existing.limit !== limit) {
        throw new HsearchError(
          "conflict",
          `concurrency limit for ${key} is already ${existing.limit}; cannot also be ${limit}`,
        );
      }
      return existing;
    }
    const created = new Semaphore(limit);
    this.semaphores.set(key, created);
    return created;
  }
}

/** The pool models share unless given their own. */
export const defaultLimiterPool = new LimiterPool();

export function withLimiter(semaphore: Semaphore): ChatModelMiddleware {
  return (inner) => ({
    id: inner.id,
    provider: inner.provider,
    generate: (request, options) => semaphore.run(() => inner.generate(request, options), options?.signal),
  });
}
