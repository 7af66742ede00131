/**
 * The canonical hash of a retail database, cheap enough to take once per rollout.
 *
 * Canonical form of a record: `canonicalJson` (sorted keys) of the record, orders with their seven optional fields
 * present (null when absent). Its digest is sha256 of that text. The database hash is a fixed two-level tree of digests:
 *   - per collection, the ids of the *base* database, sorted, are cut into fixed blocks of BLOCK_SIZE ids; a block's digest
 *     is hashJson of its [id, record digest or null when the record is absent] pairs;
 *   - ids not in the base go to `extra`, a sorted {id: record digest} map;
 *   - collection digest = hashJson({blocks, extra}); database hash = hashJson({orders, products, users}).
 * The blocks are a constant of the vendored base, so this is a deterministic function of the database's canonical
 * content: equal databases give equal hashes, and (sha256 being collision-resistant) equal hashes mean every id maps to
 * the same canonical record, i.e. equal databases. It is computed the same way for a live environment and for any
 * materialised database; base digests are computed once per process, so a rollout only hashes the records it changed,
 * the blocks holding them and the small top level.
 */
import { canonicalJson, hashJson, sha256 } from "../../core";
import { retailBase } from "./base-index";
import { recordView } from "./render";
import { COLLECTIONS, type Collection, own, type RetailData, type RetailRecords } from "./schema";
import type { RetailState } from "./state";

const BLOCK_SIZE = 32;

interface CollectionDigests {
  /** Base ids, sorted, cut into blocks. */
  blocks: string[][];
  blockOf: Map<string, number>;
  record: Map<string, string>;
  blockDigest: string[];
}

let cachedBase: Record<Collection, CollectionDigests> | undefined;

export function recordDigest<C extends Collection>(
  collection: C,
  record: Readonly<RetailRecords[C]>,
): string {
  return sha256(canonicalJson(recordView(collection, record)));
}

function baseDigests(): Record<Collection, CollectionDigests> {
  if (cachedBase !== undefined) return cachedBase;
  const { data } = retailBase();
  const out = {} as Record<Collection, CollectionDigests>;
  for (const collection of COLLECTIONS) {
    const records = data[collection] as Readonly<Record<string, RetailRecords[typeof collection]>>;
    const ids = Object.keys(records).sort();
    const record = new Map(
      ids.map((id) => [id, recordDigest(collection, records[id] as RetailRecords[Collection])]),
    );
    const blocks: string[][] = [];
    for (let start = 0; start < ids.length; start += BLOCK_SIZE)
      blocks.push(ids.slice(start, start + BLOCK_SIZE));
    const blockOf = new Map<string, number>();
    blocks.forEach((block, index) => {
      for (const id of block) blockOf.set(id, index);
    });
    const blockDigest = blocks.map((block) => hashJson(block.map((id) => [id, record.get(id) ?? null])));
    out[collection] = { blocks, blockOf, record, blockDigest };
  }
  cachedBase = out;
  return out;
}

/**
 * The collection digest given the records that differ from the base by identity: id → digest, or null when the
 * record is absent. Ids absent from `differing` are the base records themselves.
 */
function collectionDigest(base: CollectionDigests, differing: ReadonlyMap<string, string | null>): string {
  const blockDigest = [...base.blockDigest];
  const touched = new Set<number>();
  const extra: Record<string, string> = {};
  for (const [id, digest] of differing) {
    const block = base.blockOf.get(id);
    if (block !== undefined) touched.add(block);
    else if (digest !== null) extra[id] = digest;
  }
  for (const block of touched) {
    const ids = base.blocks[block] as string[];
    blockDigest[block] = hashJson(
      ids.map((id) => [id, differing.has(id) ? differing.get(id) : base.record.get(id)]),
    );
  }
  return hashJson({ blocks: blockDigest, extra });
}

/** The hash of a live state: only its changed records are digested. */
export function stateHash(state: RetailState): string {
  const base = baseDigests();
  const digests = {} as Record<Collection, string>;
  for (const collection of COLLECTIONS) {
    const differing = new Map<string, string | null>();
    for (const [id, record] of state.changed(collection)) {
      differing.set(id, record === null ? null : recordDigest(collection, record));
    }
    digests[collection] = collectionDigest(base[collection], differing);
  }
  return hashJson(digests);
}

/** The hash of any materialised database (a snapshot, or data built elsewhere); equal to stateHash of the same data. */
export function retailDbHash(db: RetailData): string {
  const base = baseDigests();
  const baseData = retailBase().data;
  const digests = {} as Record<Collection, string>;
  for (const collection of COLLECTIONS) {
    const records = db[collection] as Readonly<Record<string, RetailRecords[Collection]>>;
    const baseRecords = baseData[collection] as Readonly<Record<string, RetailRecords[Collection]>>;
    const differing = new Map<string, string | null>();
    for (const id of base[collection].blockOf.keys()) {
      const record = own(records, id);
      // The frozen base record itself needs no digesting: identity implies equal content.
      if (record === undefined) differing.set(id, null);
      else if (record !== own(baseRecords, id)) differing.set(id, recordDigest(collection, record));
    }
    for (const [id, record] of Object.entries(records)) {
      if (!base[collection].blockOf.has(id)) differing.set(id, recordDigest(collection, record));
    }
    digests[collection] = collectionDigest(base[collection], differing);
  }
  return hashJson(digests);
}
