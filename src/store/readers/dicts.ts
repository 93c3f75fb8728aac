import type { Db } from '../driver/db.js';
import { canBeStored } from '../driver/text-params.js';

/**
 * Dictionary look-ups (account bytes → id, message type → id). Only hits are cached, like the
 * reference (docs/api.md §1.7): an account or type that appears later is found on the next request.
 */
export interface DictReader {
  accountId(account: Uint8Array): Promise<number | undefined>;
  /** Ids of the names that exist; unknown names are left out. */
  msgTypeIds(names: readonly string[]): Promise<number[]>;
}

export function createDictReader(options: { db: Db; accountCacheSize?: number; msgTypeCacheSize?: number }) {
  const accounts = createHitCache<number>(options.accountCacheSize ?? 40_960);
  const msgTypes = createHitCache<number>(options.msgTypeCacheSize ?? 1024);
  const reader: DictReader = {
    async accountId(account) {
      const key = Buffer.from(account).toString('hex');
      const cached = accounts.get(key);
      if (cached !== undefined) return cached;
      const { rows } = await options.db.query<{ id: number }>(
        'SELECT id FROM account_dict WHERE account = $1',
        [Buffer.from(account)],
      );
      const id = rows[0]?.id;
      if (id !== undefined) accounts.set(key, id);
      return id;
    },
    async msgTypeIds(names) {
      const ids: number[] = [];
      const missing: string[] = [];
      // A name holding NUL can never have been stored: it is simply unknown (matches nothing).
      for (const name of new Set(names.filter(canBeStored))) {
        const cached = msgTypes.get(name);
        if (cached === undefined) missing.push(name);
        else ids.push(cached);
      }
      if (missing.length > 0) {
        const { rows } = await options.db.query<{ id: number; msg_type: string }>(
          'SELECT id, msg_type FROM msg_type_dict WHERE msg_type = ANY($1::text[])',
          [missing],
        );
        for (const row of rows) {
          msgTypes.set(row.msg_type, row.id);
          ids.push(row.id);
        }
      }
      return ids.sort((a, b) => a - b);
    },
  };
  return reader;
}

/** Insertion-ordered map that drops its oldest entry past `capacity`. */
function createHitCache<V>(capacity: number) {
  const map = new Map<string, V>();
  return {
    get: (key: string) => map.get(key),
    set(key: string, value: V) {
      map.set(key, value);
      if (map.size > capacity) {
        const oldest = map.keys().next();
        if (!oldest.done) map.delete(oldest.value);
      }
    },
  };
}
