/**
 * The database as one rollout sees it: the shared frozen base plus a copy-on-write overlay. A record is cloned into the
 * overlay (structuredClone of that record only) the first time it is written; everything else is read straight from the
 * base. Setting up a rollout allocates three empty maps, whatever the size of the database.
 */

import { deepFreeze, HsearchError } from "../../core";
import { type RetailBase, retailBase } from "./base-index";
import { COLLECTIONS, type Collection, own, type RetailData, type RetailRecords } from "./schema";

type Overlay = { [C in Collection]: Map<string, RetailRecords[C] | null> };

export class RetailState {
  readonly base: RetailBase = retailBase();
  /** Changed records by collection; null marks a record deleted (only task overlays delete). */
  private readonly overlay: Overlay = { products: new Map(), users: new Map(), orders: new Map() };
  private changes = 0;

  /** Grows on every write access; lets callers cache anything derived from the state. */
  get version(): number {
    return this.changes;
  }

  get<C extends Collection>(collection: C, id: string): Readonly<RetailRecords[C]> | undefined {
    const changed = this.overlay[collection].get(id);
    if (changed !== undefined) return changed ?? undefined;
    return own(this.baseRecords(collection), id);
  }

  /** The record to change, cloned from the base on first use. Callers validate before asking for it. */
  mutable<C extends Collection>(collection: C, id: string): RetailRecords[C] {
    this.changes++;
    const changed = this.overlay[collection].get(id);
    if (changed) return changed;
    const original = changed === null ? undefined : own(this.baseRecords(collection), id);
    if (original === undefined)
      throw new HsearchError("internal", `no ${collection} record '${id}' to write`);
    const copy = structuredClone(original);
    this.overlay[collection].set(id, copy);
    return copy;
  }

  /** Replace a whole record (a task overlay), or delete it with null. */
  put<C extends Collection>(collection: C, id: string, record: RetailRecords[C] | null): void {
    this.changes++;
    this.overlay[collection].set(id, record);
  }

  /** The records this state changed, by id (null = deleted). */
  changed<C extends Collection>(collection: C): ReadonlyMap<string, Readonly<RetailRecords[C]> | null> {
    return this.overlay[collection];
  }

  /**
   * The id of the first record, in τ² iteration order, that `matches`. `candidates` are the base ids that could match
   * (from a base index, in base order); records the overlay changed are checked directly, so the answer is the one a
   * full scan of the current database would give.
   */
  findFirst<C extends Collection>(
    collection: C,
    candidates: readonly string[] | undefined,
    matches: (record: Readonly<RetailRecords[C]>) => boolean,
  ): string | undefined {
    const changed = this.overlay[collection];
    let best: string | undefined;
    let bestPosition = Number.POSITIVE_INFINITY;
    for (const id of candidates ?? []) {
      if (!changed.has(id)) {
        best = id;
        bestPosition = this.position(collection, id);
        break;
      }
    }
    for (const [id, record] of changed) {
      const position = this.position(collection, id);
      if (record !== null && position < bestPosition && matches(record)) {
        best = id;
        bestPosition = position;
      }
    }
    return best;
  }

  /** Every record in τ² iteration order: base order, then records added by the overlay in the order they were added. */
  *entries<C extends Collection>(collection: C): Generator<[string, Readonly<RetailRecords[C]>]> {
    const changed = this.overlay[collection];
    const base = this.baseRecords(collection);
    for (const id of this.base.ids[collection]) {
      const record = changed.has(id) ? changed.get(id) : base[id];
      if (record) yield [id, record];
    }
    for (const [id, record] of changed) {
      if (record !== null && !Object.hasOwn(base, id)) yield [id, record];
    }
  }

  /** The current database as plain data, frozen; changed records are copied so later writes cannot reach it. */
  snapshot(): RetailData {
    const out = {} as Record<Collection, Record<string, unknown>>;
    for (const collection of COLLECTIONS) {
      const records: Record<string, unknown> = {};
      const changed = this.overlay[collection];
      for (const [id, record] of this.entries(collection)) {
        records[id] = changed.has(id) ? deepFreeze(structuredClone(record)) : record;
      }
      out[collection] = records;
    }
    return deepFreeze(out) as unknown as RetailData;
  }

  private baseRecords<C extends Collection>(collection: C): Readonly<Record<string, RetailRecords[C]>> {
    return this.base.data[collection] as Readonly<Record<string, RetailRecords[C]>>;
  }

  private position(collection: Collection, id: string): number {
    const inBase = this.base.position[collection].get(id);
    if (inBase !== undefined) return inBase;
    // Added records follow the base, in insertion order (Map iteration order).
    let index = this.base.ids[collection].length;
    for (const key of this.overlay[collection].keys()) {
      if (key === id) return index;
      if (!this.base.position[collection].has(key)) index++;
    }
    return index;
  }
}
