import { describe, expect, it } from "vitest";
import {
  type Budget,
  BudgetExhausted,
  BudgetGate,
  type BudgetLedger,
  reachedLimit,
} from "../../src/search/plan/budget";

const none: Budget = { max_rollouts: null, max_usd: null, max_minutes: null };

function ledger(start: { rollouts?: number; usd?: number; activeMs?: number } = {}) {
  const state = { rollouts: start.rollouts ?? 0, usd: start.usd ?? 0, activeMs: start.activeMs ?? 0 };
  const api: BudgetLedger = {
    countRollouts: () => state.rollouts,
    totalUsd: () => state.usd,
    activeMs: () => state.activeMs,
    setActiveMs: (ms) => {
      state.activeMs = ms;
    },
  };
  return { state, api };
}

function limitOf(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof BudgetExhausted) return error.limit;
    throw error;
  }
}

describe("budget limits", () => {
  it("reachedLimit names the first limit reached and nothing within the limits", () => {
    expect(reachedLimit(none, { rollouts: 1e9, usd: 1e9, minutes: 1e9 })).toBeNull();
    const budget = { max_rollouts: 10, max_usd: 1, max_minutes: 5 };
    expect(reachedLimit(budget, { rollouts: 9, usd: 0.99, minutes: 4.9 })).toBeNull();
    expect(reachedLimit(budget, { rollouts: 10, usd: 0, minutes: 0 })).toBe("max_rollouts");
    expect(reachedLimit(budget, { rollouts: 0, usd: 1, minutes: 0 })).toBe("max_usd");
    expect(reachedLimit(budget, { rollouts: 0, usd: 0, minutes: 5 })).toBe("max_minutes");
  });

  it("max_rollouts counts paid rollouts: one answered whole from the request cache is given back when it ends", () => {
    const { api } = ledger({ rollouts: 8 });
    const gate = new BudgetGate({ ...none, max_rollouts: 10 }, api);
    gate.admit();
    gate.admit();
    // Both in flight count: the limit holds before anyone knows they were free.
    expect(limitOf(() => gate.admit())).toBe("max_rollouts");
    gate.free();
    expect(gate.usage().rollouts).toBe(9);
    gate.admit();
    expect(limitOf(() => gate.admit())).toBe("max_rollouts");
    // Any number of free rollouts, one at a time, never reach the limit.
    gate.free();
    for (let i = 0; i < 50; i++) {
      gate.admit();
      gate.free();
    }
    expect(gate.usage().rollouts).toBe(9);
  });

  it("max_rollouts admits exactly the remaining rollouts, counting the stored ones of earlier sessions", () => {
    const { api } = ledger({ rollouts: 7 });
    const gate = new BudgetGate({ ...none, max_rollouts: 10 }, api);
    for (let i = 0; i < 3; i++) gate.admit();
    expect(limitOf(() => gate.admit())).toBe("max_rollouts");
    expect(gate.usage().rollouts).toBe(10);
  });

  it("max_usd counts the ledger's spend of every role as calls are answered", () => {
    const { state, api } = ledger({ usd: 0.5 });
    const gate = new BudgetGate({ ...none, max_usd: 1 }, api);
    gate.admit();
    state.usd += 0.3; // the agent's calls of a rollout still in flight
    gate.admit();
    state.usd += 0.2; // a proposer call
    expect(gate.usage().usd).toBeCloseTo(1.0);
    expect(limitOf(() => gate.admit())).toBe("max_usd");
  });

  it("stores the session's usage with the active time", () => {
    let now = 0;
    let persisted = 0;
    const { api } = ledger({});
    const gate = new BudgetGate({ ...none }, { ...api, persistUsage: () => persisted++ }, () => now);
    gate.check();
    expect(persisted).toBe(0);
    now += 1500;
    gate.check();
    expect(persisted).toBe(1);
    gate.persistActiveTime(true);
    expect(persisted).toBe(2);
  });

  it("max_minutes counts active time over sessions, persisted as the session goes", () => {
    let now = 1_000_000;
    const { state, api } = ledger({ activeMs: 4 * 60_000 });
    const gate = new BudgetGate({ ...none, max_minutes: 5 }, api, () => now);
    gate.admit();
    now += 30_000;
    gate.admit();
    expect(state.activeMs).toBe(4.5 * 60_000);
    now += 30_000;
    expect(limitOf(() => gate.check())).toBe("max_minutes");
    // A new session (a resume) starts from the persisted time, not from the wall clock since the run began.
    const later = new BudgetGate({ ...none, max_minutes: 10 }, api, () => now + 3_600_000);
    expect(later.usage().minutes).toBeCloseTo(5);
  });
});
