import type { Queryable } from '../driver/db.js';
import type { RowCache, VersionedFetch } from './row-cache.js';

/**
 * NFT answers held in the row cache (docs/api.md §1.9.1). Their rows change in place — a
 * transfer, burn, re-mint or URI update rewrites `nft`, an IBC receipt sets a collection's origin
 * name, mints and burns move the counts — so each answer is held with the version of the tables
 * it was read under, and served only to a request that read the same version after it arrived:
 * an answer is never older than the request (a commit before the request is always seen).
 *
 * - `tokens` (token and collection lists, one collection): `nft_version`, bumped by every
 *   statement that writes `nft`, `nft_collection` or `nft_holding` (migration 0019).
 * - `history` (a token's txs): that, and the block checkpoint row's transaction (`xmin`: every
 *   block batch commits its txs, tx_nfts and tx_accounts edges with it) and `store_generation`
 *   (a job replacing tx rows bumps it with each batch).
 *
 * Both carry the store's creation time: a reset store starts counting again.
 */
export type NftAnswerKind = 'tokens' | 'history';

export interface NftPages {
  /** The answer held under `key` if still current, else `produce`'s (held from its second read). */
  page(key: string, kind: NftAnswerKind, produce: VersionedFetch): Promise<Buffer>;
}

type NftVersions = Record<NftAnswerKind, string>;

export function createNftPages(db: Queryable, cache: RowCache | undefined): NftPages {
  if (!cache) return { page: async (_key, _kind, produce) => (await produce()).body };
  const versions = createVersionProbe(() => readNftVersions(db));
  return {
    async page(key, kind, produce) {
      let current: NftVersions;
      try {
        current = await versions();
      } catch {
        // No version to check against (a store not yet migrated to 0019, or the database away):
        // the answer is read from the database, which reports its own error if it is away.
        return (await produce()).body;
      }
      return cache.versioned(`${kind}\u0000${key}`, current[kind], produce);
    },
  };
}

/** Both versions in one statement of primary-key reads. */
async function readNftVersions(db: Queryable): Promise<NftVersions> {
  const { rows } = await db.query<{ nft: string; blocks: string | null }>(
    `SELECT v.version::text || ' ' || COALESCE((SELECT extract(epoch FROM created_at)::text FROM chain_meta), '') AS nft,
            (SELECT xmin::text FROM checkpoint WHERE stream = 'blocks') || ' ' ||
              (SELECT generation::text FROM store_generation) AS blocks
       FROM nft_version v`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error('nft_version has no row');
  return { tokens: row.nft, history: `${row.nft} ${row.blocks ?? ''}` };
}

/**
 * Reads of a version shared by concurrent requests, each getting a read SENT AFTER it asked: a
 * request that finds a read in flight waits for the next one (shared by every request arriving
 * meanwhile), because the read in flight may have started before a commit the request must see.
 * At most one read is in flight, however many requests wait.
 */
export function createVersionProbe<T>(read: () => Promise<T>): () => Promise<T> {
  let sent: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const send = (): Promise<T> => {
    const reading = read();
    sent = reading;
    const settle = () => {
      if (sent === reading) sent = undefined;
    };
    reading.then(settle, settle);
    return reading;
  };
  return () => {
    if (sent === undefined) return send();
    if (queued === undefined) {
      queued = sent
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          queued = undefined;
          return send();
        });
    }
    return queued;
  };
}
