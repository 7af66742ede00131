/**
 * A concurrency limit per provider: a FIFO semaphore, shared through a pool by every model of one provider and base
 * URL, so two models on the same server never exceed its limit together.
 */
import { HsearchError } from "../core";
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

/**
 * One semaphore per key (`provider|baseURL`) and limit: the models one run or evaluation makes for a server (agent,
 * customer, judge, proposer at its `concurrency`) share one; a second caller in the same process with another limit
 * (a library user's second evaluation, say) gets its own rather than a conflict, and each bounds its own calls.
 */
export class LimiterPool {
  private readonly semaphores = new Map<string, Semaphore>();

  get(key: string, limit: number): Semaphore {
    const poolKey = `${key}|${limit}`;
    const existing = this.semaphores.get(poolKey);
    if (existing) return existing;
    const created = new Semaphore(limit);
    this.semaphores.set(poolKey, created);
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
