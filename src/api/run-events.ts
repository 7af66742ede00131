import type { SearchEvents, SearchOutcome } from "../search/types";

/** What a run reports as it goes, in order; `startRun`'s handle passes each to its listeners and iterators. */
export type RunEvent =
  | {
      type: "started";
      runId: string;
      runDir: string;
      objective: string;
      searchTasks: number;
      rounds: number;
      proposalsPerRound: number;
      model: string;
    }
  /** Something to tell a person: a parameter a provider rejected, the workers connected, a warning. */
  | { type: "message"; text: string }
  | { type: "phase"; message: string }
  | { type: "rollouts"; done: number; total: number; label: string }
  | ({ type: "candidate" } & Parameters<NonNullable<SearchEvents["candidate"]>>[0])
  | ({ type: "round" } & Parameters<NonNullable<SearchEvents["round"]>>[0])
  | { type: "finished"; outcome: SearchOutcome };

export type RunEventListener = (event: RunEvent) => void;

/**
 * The events of one run or study: every listener and every iterator sees all of them from the first (an iterator
 * made after some were emitted replays those first), and iteration ends when the work ends.
 */
export class EventLog<E> implements AsyncIterable<E> {
  readonly #events: E[] = [];
  readonly #listeners = new Set<(event: E) => void>();
  readonly #waiting = new Set<() => void>();
  #closed = false;
  #failure: { error: unknown } | null = null;
  emit(event: E): void {
    this.#events.push(event);
    for (const listener of this.#listeners) listener(event);
    this.#wake();
  }

  /** Ends iteration; after `fail`, iterators throw the run's error once they have passed the last event. */
  fail(error: unknown): void {
    this.#failure = { error };
    this.close();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  on(listener: (event: E) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<E> {
    let next = 0;
    while (true) {
      const event = this.#events[next];
      if (event) {
        next++;
        yield event;
      } else if (this.#closed) {
        if (this.#failure) throw this.#failure.error;
        return;
      } else await new Promise<void>((resolve) => this.#waiting.add(resolve));
    }
  }

  #wake(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const resolve of waiting) resolve();
  }
}

/** What a run's or a study's handle offers over its events: listeners, iteration and the result. */
export interface EventHandle<E, R> extends AsyncIterable<E> {
  on(listener: (event: E) => void): () => void;
  readonly result: Promise<R>;
}

/** Runs `work` over `events`, which end when it settles (with its error when it fails). */
export function handleOver<E, R>(events: EventLog<E>, work: () => Promise<R>): EventHandle<E, R> {
  // Started on the next tick, so listeners added right after the handle is returned see the first event.
  const result = Promise.resolve().then(work);
  result.then(
    () => events.close(),
    (error: unknown) => events.fail(error),
  );
  // A caller who only iterates learns of a failure from the iterator; the result's rejection is not unhandled then.
  result.catch(() => {});
  return {
    on: (listener) => events.on(listener),
    result,
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
  };
}

export class RunEventLog extends EventLog<RunEvent> {
  /** The run directory once it is known (a resume of a run that failed finds it here). */
  runDir: string | undefined;
}
