import type { Queryable } from '../driver/db.js';

/**
 * Interns keys (account bytes, message types) into a dictionary table in one round trip, with a
 * bounded in-memory cache. New ids are only cached after the surrounding transaction commits,
 * so a rolled-back batch never leaves ids in the cache that the database does not have.
 */
export interface Dictionary<K> {
  resolve(tx: Queryable, keys: Iterable<K>): Promise<Map<string, number>>;
  /** Make the ids learnt since the last call permanent (call after COMMIT). */
  commit(): void;
  /** Forget the ids learnt since the last commit (call after ROLLBACK). */
  discard(): void;
}

interface DictionarySpec<K> {
  table: 'account_dict' | 'msg_type_dict';
  column: 'account' | 'msg_type';
  sqlType: 'bytea' | 'text';
  cacheKey: (key: K) => string;
  maxCached: number;
}

export function createDictionary<K>(spec: DictionarySpec<K>): Dictionary<K> {
  const cache = new Map<string, number>();
  let pending = new Map<string, number>();
  // Both branches of the UNION read one snapshot, so a key is returned exactly once: inserted
  // now (RETURNING) or present before (join). Keys are inserted in key order: two writers of one
  // database (the block stream and a stage) interning overlapping new keys at once then meet on
  // the first key they share, and one waits; in the order DISTINCT happened to give, each could
  // hold a key the other wanted (a deadlock, seen in CI; dictionary.test.ts).
  const sql = `
    WITH input(k) AS (SELECT DISTINCT unnest($1::${spec.sqlType}[])),
    inserted AS (
      INSERT INTO ${spec.table} (${spec.column}) SELECT k FROM input ORDER BY k
      ON CONFLICT (${spec.column}) DO NOTHING RETURNING id, ${spec.column} AS k
    )
    SELECT id, k FROM inserted
    UNION ALL
    SELECT d.id, d.${spec.column} AS k FROM ${spec.table} d JOIN input i ON d.${spec.column} = i.k`;

  return {
    async resolve(tx, keys) {
      const ids = new Map<string, number>();
      const missing = new Map<string, K>();
      for (const key of keys) {
        const ck = spec.cacheKey(key);
        const id = cache.get(ck) ?? pending.get(ck);
        if (id !== undefined) ids.set(ck, id);
        else missing.set(ck, key);
      }
      // A key another transaction inserted while this statement waited on it is in neither branch
      // (its row is newer than the statement's snapshot); the next statement sees it.
      for (let round = 0; missing.size > 0; round++) {
        if (round === 3) throw new Error(`${spec.table}: ${missing.size} keys could not be interned`);
        const { rows } = await tx.query<{ id: number; k: Uint8Array | string }>(sql, [[...missing.values()]]);
        for (const row of rows) {
          const ck = typeof row.k === 'string' ? row.k : Buffer.from(row.k).toString('hex');
          ids.set(ck, row.id);
          pending.set(ck, row.id);
          missing.delete(ck);
        }
      }
      return ids;
    },
    commit() {
      for (const [k, v] of pending) {
        if (cache.size >= spec.maxCached) cache.delete(cache.keys().next().value as string);
        cache.set(k, v);
      }
      pending = new Map();
    },
    discard() {
      pending = new Map();
    },
  };
}

// asBuffer views the bytes; Buffer.from(bytes) would copy them first, for every key of every batch.
export const hexKey = (bytes: Uint8Array): string => asBuffer(bytes).toString('hex');

/** node-postgres serialises Buffers (not plain Uint8Arrays) as bytea inside arrays. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Distinct byte strings (by value), as Buffers ready for a bytea[] parameter. */
export function uniqueBytes(list: Iterable<Uint8Array>): Uint8Array[] {
  const byHex = new Map<string, Uint8Array>();
  for (const b of list) byHex.set(hexKey(b), asBuffer(b));
  return [...byHex.values()];
}

/** The account dictionary (account_dict), keyed by the normalised account bytes. */
export function createAccountDictionary(maxCached: number): Dictionary<Uint8Array> {
  return createDictionary<Uint8Array>({
    table: 'account_dict',
    column: 'account',
    sqlType: 'bytea',
    cacheKey: hexKey,
    maxCached,
  });
}
