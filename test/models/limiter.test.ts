import { describe, expect, it } from "vitest";
import { LimiterPool, Semaphore, withLimiter } from "../../src/models/limiter";
import { MockChatModel, textReply } from "../../src/models/mock";

/** A promise with its resolve function exposed, to hold tasks open until the test lets them go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("Semaphore", () => {
  it("never runs more than its limit at once and serves waiters first come, first served", async () => {
    const semaphore = new Semaphore(2);
    const gates = [gate(), gate(), gate(), gate(), gate()];
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const tasks = gates.map((g, index) =>
      semaphore.run(async () => {
        started.push(index);
        running += 1;
        peak = Math.max(peak, running);
        await g.promise;
        running -= 1;
      }),
    );
    await flush();
    expect(started).toEqual([0, 1]);
    expect(semaphore.active).toBe(2);
    expect(semaphore.waiting).toBe(3);
    gates[1]?.open();
    await flush();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    await Promise.all(tasks);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(semaphore.active).toBe(0);
  });

  it("frees the slot when a task fails", async () => {
    const semaphore = new Semaphore(1);
    await expect(semaphore.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(semaphore.run(async () => "next")).resolves.toBe("next");
  });

  it("drops a waiter whose signal aborts, without taking a slot", async () => {
    const semaphore = new Semaphore(1);
    const hold = gate();
    const first = semaphore.run(() => hold.promise);
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error("gave up waiting"));
    await expect(waiting).rejects.toThrow("gave up waiting");
    expect(semaphore.waiting).toBe(0);
    hold.open();
    await first;
    expect(semaphore.active).toBe(0);
  });

  it("releasing twice frees only one slot", async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    release();
    release();
    expect(semaphore.active).toBe(0);
    const again = await semaphore.acquire();
    expect(semaphore.active).toBe(1);
    again();
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => new Semaphore(0)).toThrow(/positive integer/);
    expect(() => new Semaphore(1.5)).toThrow(/positive integer/);
  });
});

describe("LimiterPool", () => {
  it("shares one semaphore per key and limit; another limit for the same key is its own semaphore", () => {
    const pool = new LimiterPool();
    const a = pool.get("openai|http://x", 4);
    expect(pool.get("openai|http://x", 4)).toBe(a);
    expect(pool.get("anthropic|http://x", 4)).not.toBe(a);
    const other = pool.get("openai|http://x", 8);
    expect(other).not.toBe(a);
    expect(other.limit).toBe(8);
    expect(pool.get("openai|http://x", 8)).toBe(other);
  });
});

describe("withLimiter", () => {
  it("bounds concurrent generate calls across two models sharing a semaphore", async () => {
    const semaphore = new Semaphore(3);
    let running = 0;
    let peak = 0;
    const slow = () =>
      new MockChatModel(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return textReply("ok");
      });
    const a = withLimiter(semaphore)(slow());
    const b = withLimiter(semaphore)(slow());
    const calls = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).generate({ messages: [{ role: "user", content: "hi" }], tools: [], seed: i }),
    );
    await Promise.all(calls);
    expect(peak).toBe(3);
  });
});
