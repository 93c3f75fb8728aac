import { AppError } from '../../shared/errors.js';
import type { JsonText } from './stored-json.js';
import type { StoreWatch } from './store-watch.js';

/**
 * The API's memory of stored JSON rows by `sequence` (issue 24). A committed row of `tx`, `evm_tx`
 * or `evm_internal_tx` never changes: ingest only INSERTs them (src/store/writers: no UPDATE or
 * DELETE of these tables; one transaction per batch with its checkpoint), so a list page can
 * read just its sequences (an index scan) and fetch only the rows this process has not seen yet.
 * Hot pages then cost PostgreSQL almost nothing and the API only copies bytes it holds.
 *
 * What can still change a row under a running API is not ingest: a database reset or re-ingest
 * (another chain, or the same one rendered by another release), a data migration (0009 rewrote
 * `tx.data` in place), the re-render job and `reindex`. Each moves the store's identity —
 * `chain_meta` (re-created on a reset), the latest applied migration, the documents' formats and
 * re-render checkpoints, `store_generation` (bumped with each batch of a job replacing rows), or
 * the block checkpoint going backwards — which the store watch (store-watch.ts) reads at most every
 * `checkEveryMs`, before any row is served from memory: a cached row is served only while the
 * identity it was read under was confirmed within that interval (docs/api.md §1.9). A change
 * drops every row.
 *
 * It also holds values that DO change in place — NFT pages (docs/api.md §1.9.1) — each with the
 * version of its tables it was read under: such a value is served only to a caller that has just
 * read the same version (`versioned`), so it is never stale, and shares the budget with the rows.
 */

export type RowTable = 'tx' | 'evm_tx' | 'evm_internal_tx';

/** What the cache holds, for its metrics: the immutable rows' tables and the NFT pages. */
export type HeldKind = RowTable | 'nft_page';

export interface RowCacheObserver {
  looked(kind: HeldKind, hits: number, misses: number): void;
  /** Every cached row was dropped because the store's identity changed. */
  dropped(): void;
}

export interface RowCache {
  /**
   * The rows of `sequences` in that order: from memory, the rest from `fetch` (which must return
   * each asked sequence once). A sequence `fetch` does not return fails with `db_rows_changed`.
   */
  rows(table: RowTable, sequences: readonly number[], fetch: RowFetch): Promise<JsonText[]>;
  /**
   * The value held under `key` if it was read under `version` (which the caller read after its
   * request arrived); otherwise `fetch`'s, held under `version` from its second fetch on unless
   * `keep` is false. `version` must be read before `fetch` starts: a value read later is at least
   * as new as the version it is held under, never older.
   */
  versioned(key: string, version: string, fetch: VersionedFetch): Promise<Buffer>;
  /** Bytes held (rows plus a per-entry estimate). */
  bytes(): number;
}

export type RowFetch = (missing: number[]) => Promise<{ sequence: number; data: JsonText }[]>;

/** A changing value as read: its bytes (owned by the cache once kept) and whether to keep it. */
export type VersionedFetch = () => Promise<{ body: Buffer; keep: boolean }>;

/** A held changing value and the version of its tables it was read under. */
interface VersionedEntry {
  version: string;
  body: Buffer;
}

type Held = Buffer | VersionedEntry;
type HeldKey = number | string;

/** Map entry, Buffer object and its own backing store: a rough per-row overhead. */
const ENTRY_OVERHEAD = 160;
const TABLE_INDEX: Record<RowTable, number> = { tx: 0, evm_tx: 1, evm_internal_tx: 2 };

export function createRowCache(options: {
  maxBytes: number;
  /** The process's store watch, shared with the response cache (docs/api.md §1.9). */
  watch: StoreWatch;
  observer?: RowCacheObserver;
}): RowCache {
  const { watch } = options;
  // One store for the three tables (keys carry the table), so they share the budget.
  const rowsOf = createGenerations(options.maxBytes);
  const seenBefore = createDoorkeeper(Math.max(1024, Math.floor(options.maxBytes / 1024)));
  /** Bumped on every drop: a fetch that started before it must not fill the new generation. */
  let generation = 0;
  /** The watch's epoch the held rows were read under. */
  let filledEpoch: number | undefined;
  /** Changing values being read now, by key, with the version each read is for. */
  const reading = new Map<string, { version: string; body: Promise<Buffer> }>();

  /** Forgets every row, and every fetch still running (it may have read the old store). */
  const drop = () => {
    if (rowsOf.bytes() > 0) options.observer?.dropped();
    rowsOf.clear();
    reading.clear();
    generation += 1;
  };

  /** Drops every row once the store's identity moved (or could not be confirmed). */
  const confirm = async () => {
    const epoch = await watch.epoch();
    if (epoch !== filledEpoch) drop();
    filledEpoch = epoch;
  };

  return {
    async rows(table, sequences, fetch) {
      await confirm();
      const tableIndex = TABLE_INDEX[table];
      const keyOf = (sequence: number) => sequence * 4 + tableIndex;
      // Number keys hold rows only (versioned values are held under string keys).
      const found = sequences.map((sequence) => rowsOf.get(keyOf(sequence)) as Buffer | undefined);
      const missing = sequences.filter((_, i) => found[i] === undefined);
      options.observer?.looked(table, sequences.length - missing.length, missing.length);
      if (missing.length === 0) return found as Buffer[];
      const fillGeneration = generation;
      const fetched = new Map<number, JsonText>();
      for (const row of await fetch(missing)) fetched.set(Number(row.sequence), row.data);
      return sequences.map((sequence, i) => {
        const cached = found[i];
        if (cached !== undefined) return cached;
        const row = fetched.get(sequence);
        if (row === undefined) throw rowsChanged(table, sequence);
        const key = keyOf(sequence);
        if (generation === fillGeneration && seenBefore(key)) rowsOf.put(key, ownedCopy(row));
        return row;
      });
    },
    async versioned(key, version, fetch) {
      await confirm();
      const held = rowsOf.get(key);
      if (held !== undefined && !Buffer.isBuffer(held) && held.version === version) {
        options.observer?.looked('nft_page', 1, 0);
        return held.body;
      }
      options.observer?.looked('nft_page', 0, 1);
      // Callers that read the same version share one read: it began after that version was
      // read, so it shows every commit the version does (docs/api.md §1.9.1). After a write moves
      // the version, the concurrent requests for a page make one database read, not one each.
      const running = reading.get(key);
      if (running !== undefined && running.version === version) return running.body;
      const fillGeneration = generation;
      const body = fetch().then(({ body, keep }) => {
        if (keep && generation === fillGeneration && seenBefore(key)) {
          rowsOf.put(key, { version, body: ownedCopy(body) });
        }
        return body;
      });
      const entry = { version, body };
      reading.set(key, entry);
      const done = () => {
        if (reading.get(key) === entry) reading.delete(key);
      };
      body.then(done, done);
      return body;
    },
    bytes: () => rowsOf.bytes(),
  };
}

/**
 * Least-recently-used in two generations (O(1), no ordering to maintain): rows enter the young
 * map; a hit in the old one moves the row to the young one; once the young map holds half the
 * budget it becomes the old one and the old one is dropped whole. Rows used within the last half
 * budget of fills are always held. (A Map kept in LRU order and evicted from its front is
 * O(deleted entries) per eviction in V8: its iteration walks the deleted slots.)
 */
function createGenerations(maxBytes: number) {
  let young = new Map<HeldKey, Held>();
  let old = new Map<HeldKey, Held>();
  let youngBytes = 0;
  let oldBytes = 0;
  const size = (key: HeldKey, held: Held) =>
    (Buffer.isBuffer(held) ? held.length : held.body.length + held.version.length) +
    (typeof key === 'string' ? key.length : 0) +
    ENTRY_OVERHEAD;
  const put = (key: HeldKey, row: Held) => {
    // A row larger than this would evict a large part of the cache for one entry.
    if (size(key, row) > maxBytes / 16) return;
    const replaced = young.get(key);
    if (replaced !== undefined) youngBytes -= size(key, replaced);
    young.set(key, row);
    youngBytes += size(key, row);
    if (youngBytes < maxBytes / 2) return;
    old = young;
    oldBytes = youngBytes;
    young = new Map();
    youngBytes = 0;
  };
  return {
    get(key: HeldKey): Held | undefined {
      const row = young.get(key);
      if (row !== undefined) return row;
      const aged = old.get(key);
      if (aged === undefined) return undefined;
      old.delete(key);
      oldBytes -= size(key, aged);
      put(key, aged);
      return aged;
    },
    put,
    bytes: () => youngBytes + oldBytes,
    clear() {
      young = new Map();
      old = new Map();
      youngBytes = 0;
      oldBytes = 0;
    },
  };
}

/**
 * Admission: a row is held from its second fetch on. Held rows are memory that outlives the page
 * (V8 external memory, collected only by full mark-compacts), so a load of pages read once — a
 * crawler walking deep history — would churn the cache and pay those collections for nothing; a
 * page asked twice is worth keeping. Remembers up to 2 × `maxKeys` keys (two generations of Sets).
 */
function createDoorkeeper(maxKeys: number): (key: HeldKey) => boolean {
  let recent = new Set<HeldKey>();
  let older = new Set<HeldKey>();
  return (key) => {
    if (recent.has(key) || older.has(key)) return true;
    recent.add(key);
    if (recent.size >= maxKeys) {
      older = recent;
      recent = new Set();
    }
    return false;
  };
}

/**
 * Memory only the cache references: a Buffer that is exactly its own backing store is kept (the
 * driver's copy of a large row), anything else is copied — a view into a reused read buffer
 * (pg-socket.ts) would change under the cache, a slice of Node's shared pool would pin the pool.
 */
export function ownedCopy(data: JsonText): Buffer {
  if (typeof data === 'string') data = Buffer.from(data, 'utf8');
  if (data.byteOffset === 0 && data.buffer.byteLength === data.length) return data;
  const copy = Buffer.allocUnsafeSlow(data.length);
  data.copy(copy);
  return copy;
}

/**
 * A page's sequences were read, but one of its rows was not there a statement later: the store was
 * reset under the API. Retrying reads the new store.
 */
function rowsChanged(table: RowTable, sequence: number): AppError {
  return new AppError('db_rows_changed', `row ${sequence} of ${table} vanished between two statements`, {
    retryable: true,
  });
}
