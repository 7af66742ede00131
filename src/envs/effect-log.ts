import { deepFreeze } from "../core";
import type { EffectRecord } from "./types";

/**
 * The ordered log of every tool call an environment served, shared by the retail and terminal environments.
 * Records are copied and frozen on the way in, so neither the caller nor a reader can rewrite history.
 */
export class EffectLog {
  private readonly records: EffectRecord[] = [];
  /** A frozen copy of `records`, rebuilt only after an append, so reading the log often costs nothing. */
  private view: readonly EffectRecord[] = Object.freeze([]);

  append(record: EffectRecord): EffectRecord {
    const stored = deepFreeze(structuredClone(record));
    this.records.push(stored);
    return stored;
  }

  /** Every call so far, in order (a frozen list). */
  list(): readonly EffectRecord[] {
    if (this.view.length !== this.records.length) this.view = Object.freeze([...this.records]);
    return this.view;
  }

  /** The calls that changed state (successful writes), in order. */
  writes(): EffectRecord[] {
    return this.records.filter((record) => record.ok && record.wrote);
  }

  filter(predicate: (record: EffectRecord) => boolean): EffectRecord[] {
    return this.records.filter(predicate);
  }

  get size(): number {
    return this.records.length;
  }
}
