import { HsearchError } from "../../core";
import type { SearchConfig } from "../config/config-schema";

/**
 * Run budgets that hold (docs/DESIGN.md §3 `budget`). Every rollout asks the gate before it starts; once a limit is reached
 * no rollout starts, so a run overshoots by at most the rollouts already in flight (zero for `max_rollouts`, which
 * counts rollouts as they start). The gate is in-process state over the store's totals at session start, so a resumed
 * run continues the same count.
 *
 * `max_rollouts` counts paid rollouts: a rollout whose every model call the request cache answered (a run repeated on
 * its cache, a proposal whose requests match its parent's) cost nothing, and is given back when it ends (`free`). Until
 * then it counts, so the limit is never overshot; near the limit a run may stop with rollouts in flight that turn out
 * free (a resume continues from there).
 */
export type Budget = SearchConfig["budget"];
export type BudgetLimit = keyof Budget;

export interface BudgetUsage {
  /** Paid rollouts stored or started: rollouts less those answered whole from the request cache. */
  rollouts: number;
  /** Every role's spend: earlier sessions as stored, this session's calls as they are answered. */
  usd: number;
  /** Active minutes over every session of the run. */
  minutes: number;
}

/** The first limit the usage has reached, in a fixed order; null while within every limit. Pure. */
export function reachedLimit(budget: Budget, usage: BudgetUsage): BudgetLimit | null {
  if (budget.max_rollouts !== null && usage.rollouts >= budget.max_rollouts) return "max_rollouts";
  if (budget.max_usd !== null && usage.usd >= budget.max_usd) return "max_usd";
  if (budget.max_minutes !== null && usage.minutes >= budget.max_minutes) return "max_minutes";
  return null;
}

export class BudgetExhausted extends HsearchError {
  readonly limit: BudgetLimit;
  readonly usage: BudgetUsage;

  constructor(limit: BudgetLimit, budget: Budget, usage: BudgetUsage) {
    super("budget", `budget exhausted: ${describeLimit(limit, budget, usage)}`);
    this.limit = limit;
    this.usage = usage;
  }
}

export function describeLimit(limit: BudgetLimit, budget: Budget, usage: BudgetUsage): string {
  const spent =
    limit === "max_rollouts"
      ? `${usage.rollouts} rollouts`
      : limit === "max_usd"
        ? `$${usage.usd.toFixed(4)}`
        : `${usage.minutes.toFixed(2)} minutes`;
  return `${limit} = ${budget[limit]} reached (${spent})`;
}

/** What the gate reads from and writes to the run store. */
export interface BudgetLedger {
  /** Paid rollouts stored: every stored rollout but those answered whole from the request cache. */
  countRollouts(): number;
  /** Spend of every role so far, this session's answered calls included. */
  totalUsd(): number;
  activeMs(): number;
  setActiveMs(ms: number): void;
  /** Store this session's usage (called with the active time, about once a second, and at the end). */
  persistUsage?(): void;
}

const PERSIST_EVERY_MS = 1000;

export class BudgetGate {
  readonly #budget: Budget;
  readonly #ledger: BudgetLedger;
  readonly #now: () => number;
  readonly #signal: AbortSignal | undefined;
  readonly #rolloutsAtStart: number;
  readonly #activeMsAtStart: number;
  readonly #sessionStart: number;
  #started = 0;
  #freed = 0;
  #persistedAt: number;

  /** `signal`: the library caller's cancellation, refused like a spent budget (no new rollout, no proposer call). */
  constructor(budget: Budget, ledger: BudgetLedger, now: () => number = Date.now, signal?: AbortSignal) {
    this.#budget = budget;
    this.#signal = signal;
    this.#ledger = ledger;
    this.#now = now;
    this.#rolloutsAtStart = ledger.countRollouts();
    this.#activeMsAtStart = ledger.activeMs();
    this.#sessionStart = now();
    this.#persistedAt = this.#sessionStart;
  }

  usage(): BudgetUsage {
    const activeMs = this.#activeMsAtStart + (this.#now() - this.#sessionStart);
    return {
      rollouts: this.#rolloutsAtStart + this.#started - this.#freed,
      usd: this.#budget.max_usd === null ? 0 : this.#ledger.totalUsd(),
      minutes: activeMs / 60_000,
    };
  }

  /** Throws BudgetExhausted when a limit is reached (HsearchError `cancelled` once aborted); otherwise nothing. */
  check(): void {
    if (this.#signal?.aborted)
      throw new HsearchError("cancelled", "the run was cancelled; resume it to continue where it stopped");
    this.persistActiveTime(false);
    const usage = this.usage();
    const limit = reachedLimit(this.#budget, usage);
    if (limit !== null) throw new BudgetExhausted(limit, this.#budget, usage);
  }

  /** Before a rollout starts: admits it (counting it) or throws BudgetExhausted. */
  admit(): void {
    this.check();
    this.#started++;
  }

  /** An admitted rollout ended with every model call answered from the request cache: it is not counted. */
  free(): void {
    this.#freed++;
  }

  /**
   * Active time and usage are stored about once a second (and at the end), so a killed session loses at most that
   * much of either.
   */
  persistActiveTime(force: boolean): void {
    const now = this.#now();
    if (!force && now - this.#persistedAt < PERSIST_EVERY_MS) return;
    this.#persistedAt = now;
    this.#ledger.setActiveMs(this.#activeMsAtStart + (now - this.#sessionStart));
    this.#ledger.persistUsage?.();
  }
}
