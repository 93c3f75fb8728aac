import type { Queryable } from '../driver/db.js';

/**
 * What an API process's memories (the row cache, the response cache) check before serving what
 * they hold: the store's identity, read at most every `checkEveryMs` (docs/api.md §1.9). Each
 * change of it — a reset, a migration, a document format, a job that replaced rows (it bumps
 * `store_generation` with its batch) — moves the watch's epoch; a memory drops what it filled
 * under an older epoch.
 */
export interface StoreWatch {
  /** The current epoch: confirmed within the interval (a number), or once one short read is done. */
  epoch(): number | Promise<number>;
}

/**
 * How often an API process re-reads the store's identity before serving what it holds: the list
 * routes' response-cache TTL, so a reset is seen no later than a cached answer would expire. A job
 * replacing rows waits this long (and a little) after its last commit before it reports done.
 */
export const STORE_CHECK_MS = 1000;

/** What moves when the stored rows may have been replaced. */
export interface StoreIdentity {
  /** Chain and its `chain_meta` creation time, latest migration, formats, generation: any change. */
  key: string;
  /** Block checkpoint height: going backwards is a change too (a re-ingest from scratch). */
  height: number;
}

export function createStoreWatch(options: {
  identity: () => Promise<StoreIdentity>;
  checkEveryMs: number;
  now?: () => number;
}): StoreWatch {
  const now = options.now ?? Date.now;
  let epoch = 0;
  let known: StoreIdentity | undefined;
  let checkedAt = -Infinity;
  let checking: Promise<number> | undefined;

  /**
   * `next` undefined: the identity could not be read. The epoch stays only while consecutive
   * reads agree; after a failed read nothing held is trusted again, whatever the next read says.
   * `startedAt` is when the read was sent: a commit after it is seen by the next read, so a job
   * that waits `checkEveryMs` after its commit knows no process still trusts older memory.
   */
  const observe = (next: StoreIdentity | undefined, startedAt: number) => {
    const same =
      next !== undefined && known !== undefined && next.key === known.key && next.height >= known.height;
    if (!same) epoch += 1;
    known = next;
    checkedAt = startedAt;
    return epoch;
  };

  return {
    epoch() {
      if (now() - checkedAt < options.checkEveryMs) return epoch;
      if (checking) return checking;
      const startedAt = now();
      checking = options
        .identity()
        .then(
          (next) => observe(next, startedAt),
          () => observe(undefined, startedAt),
        )
        .finally(() => {
          checking = undefined;
        });
      return checking;
    },
  };
}

/**
 * The store's identity: one short statement (five primary-key or tiny-table reads). The stored
 * documents' formats are part of it (the re-render job moves its checkpoint with every batch), and
 * so is `store_generation`, which any job replacing rows bumps with its batch.
 */
export async function readStoreIdentity(db: Queryable): Promise<StoreIdentity> {
  const { rows } = await db.query<{
    chain: string | null;
    migration: string | null;
    formats: string | null;
    generation: unknown;
    height: unknown;
  }>(
    `SELECT (SELECT chain_id || ' ' || vm_type || ' ' || extract(epoch FROM created_at)::text FROM chain_meta) AS chain,
            (SELECT max(name) FROM schema_migrations) AS migration,
            (SELECT string_agg(concat_ws(':', document, version, rerender_to, rerender_after), ' ' ORDER BY document)
               FROM document_format) AS formats,
            (SELECT generation FROM store_generation) AS generation,
            (SELECT height FROM checkpoint WHERE stream = 'blocks') AS height`,
  );
  const row = rows[0];
  const key = [
    row?.chain ?? '',
    row?.migration ?? '',
    row?.formats ?? '',
    String(row?.generation ?? ''),
  ].join('\u0000');
  return { key, height: Number(row?.height ?? 0) };
}
