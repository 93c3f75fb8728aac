import { nftNameKey } from '../../shared/nft-name.js';
import type { Queryable } from '../driver/db.js';
import { asBuffer, hexKey } from './dictionary.js';
import { createNftReceiptLog } from './nft-receipts.js';
import type { NftBlockRows, NftChange, NftCollectionRow } from './nft-rows.js';

/** One block's NFT rows with what the writer needs to place them. */
export interface NftBlockInput {
  height: number;
  timestamp: string;
  nft: NftBlockRows;
  /** tx.sequence of the block's first tx (tx i is firstSequence + i). */
  firstSequence: number;
}

/** Every account an NFT batch names (owners, creators), to intern with the block's accounts. */
export function nftAccounts(blocks: readonly NftBlockRows[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const b of blocks) {
    for (const c of b.collections) if (c.creator) out.push(c.creator);
    for (const ch of b.changes) if (ch.kind === 'mint' || ch.kind === 'transfer') out.push(ch.owner);
  }
  return out;
}

interface TokenState {
  id: number;
  collection: Buffer;
  tokenId: string;
  objectAddr: Buffer | null;
  live: boolean;
  ownerId: number;
  uri: string;
  height: number;
  timestamp: string;
}

/**
 * Writes a batch's NFT rows inside the block transaction (after its txs, so the EVM creator rule
 * can read them): collections, then every token change folded in chain order, then the derived
 * counts (nft_collection.nft_count, nft_holding), the tx edges and the origin names.
 */
export async function writeNftBlocks(
  tx: Queryable,
  blocks: readonly NftBlockInput[],
  accountId: (bytes: Uint8Array) => number,
): Promise<void> {
  if (
    blocks.every(
      (b) => b.nft.collections.length === 0 && b.nft.changes.length === 0 && b.nft.originNames.length === 0,
    )
  )
    return;
  await insertCollections(tx, blocks, accountId);
  const known = await knownCollections(tx, blocks);
  const ids = await internKeys(tx, blocks, known);
  const objects = await resolveObjects(tx, blocks, ids);
  const before = await loadTokens(tx, [...new Set([...ids.values(), ...objects.values()])]);
  const after = new Map([...before].map(([id, s]) => [id, { ...s }]));
  const edges = new Set<string>();
  const receipts = createNftReceiptLog();
  for (const b of blocks) {
    for (const ch of b.nft.changes) {
      const id = refId(ch, ids, objects, known);
      if (id === undefined) continue;
      const held = after.get(id);
      const ownerBefore = held?.live ? held.ownerId : undefined;
      applyChange(after, id, ch, b, accountId);
      const sequence = ch.txIndex === null ? null : b.firstSequence + ch.txIndex;
      if (sequence !== null) edges.add(`${id}:${sequence}`);
      receipts.record(
        { height: b.height, sequence },
        id,
        ch,
        { ownerBefore, after: after.get(id) },
        accountId,
      );
    }
  }
  await storeTokens(tx, before, after);
  await insertEdges(tx, edges);
  await receipts.insert(tx);
  for (const b of blocks) {
    for (const o of b.nft.originNames) {
      await tx.query(`UPDATE nft_collection SET origin_name = $2, origin_name_key = $3 WHERE name = $1`, [
        o.l2Name,
        o.l1Name,
        nftNameKey(o.l1Name),
      ]);
    }
  }
}

const tokenKey = (collection: Uint8Array, tokenId: string): string => `${hexKey(collection)}/${tokenId}`;

async function insertCollections(
  tx: Queryable,
  blocks: readonly NftBlockInput[],
  accountId: (bytes: Uint8Array) => number,
): Promise<void> {
  const first = new Map<string, NftCollectionRow>();
  for (const b of blocks)
    for (const c of b.nft.collections) if (!first.has(hexKey(c.addr))) first.set(hexKey(c.addr), c);
  if (first.size === 0) return;
  const rows = [...first.values()];
  // EVM: creator and creation height are those of the first stored tx that touched the contract.
  await tx.query(
    `INSERT INTO nft_collection (addr, height, "timestamp", name, creator_id, nft_count, name_key)
     SELECT c.addr, coalesce(f.height, c.height), coalesce(f.ts, c.ts), c.name, coalesce(f.signer_id, c.creator_id),
            (SELECT count(*) FROM nft n WHERE n.collection_addr = c.addr), c.name_key
       FROM unnest($1::bytea[], $2::bigint[], $3::timestamptz[], $4::text[], $5::bigint[], $6::bool[], $7::text[])
            AS c(addr, height, ts, name, creator_id, first_tx, name_key)
       LEFT JOIN LATERAL (
         SELECT t.signer_id, t.height, b."timestamp" AS ts
           FROM account_dict d JOIN tx_accounts ta ON ta.account_id = d.id
           JOIN tx t ON t.sequence = ta.sequence JOIN block b ON b.height = t.height
          WHERE c.first_tx AND d.account = c.addr ORDER BY ta.sequence LIMIT 1) f ON true
      WHERE NOT EXISTS (SELECT 1 FROM nft_collection x WHERE x.addr = c.addr)
     ON CONFLICT (addr) DO NOTHING`,
    [
      rows.map((c) => asBuffer(c.addr)),
      rows.map((c) => c.height),
      rows.map((c) => c.timestamp),
      rows.map((c) => c.name),
      rows.map((c) => (c.creator ? accountId(c.creator) : null)),
      rows.map((c) => c.creatorFromFirstTx === true),
      rows.map((c) => nftNameKey(c.name)),
    ],
  );
}

/** Tokens exist only in collections the database knows; changes to others are left out. */
async function knownCollections(tx: Queryable, blocks: readonly NftBlockInput[]): Promise<Set<string>> {
  const addrs = new Map<string, Buffer>();
  for (const b of blocks)
    for (const ch of b.nft.changes)
      if ('collection' in ch.ref) addrs.set(hexKey(ch.ref.collection), asBuffer(ch.ref.collection));
  if (addrs.size === 0) return new Set();
  const { rows } = await tx.query<{ addr: Uint8Array }>(
    `SELECT addr FROM nft_collection WHERE addr = ANY($1::bytea[])`,
    [[...addrs.values()]],
  );
  return new Set(rows.map((r) => hexKey(r.addr)));
}

/** nft_dict ids of every (collection, token id) the batch names (docs/ingest.md §5.3), created when new. */
async function internKeys(
  tx: Queryable,
  blocks: readonly NftBlockInput[],
  known: Set<string>,
): Promise<Map<string, number>> {
  const keys = new Map<string, { collection: Buffer; tokenId: string }>();
  for (const b of blocks) {
    for (const ch of b.nft.changes) {
      if (!('collection' in ch.ref) || !known.has(hexKey(ch.ref.collection))) continue;
      keys.set(tokenKey(ch.ref.collection, ch.ref.tokenId), {
        collection: asBuffer(ch.ref.collection),
        tokenId: ch.ref.tokenId,
      });
    }
  }
  if (keys.size === 0) return new Map();
  const list = [...keys.values()];
  const { rows } = await tx.query<{ id: number; c: Uint8Array; t: string }>(
    `WITH input(c, t) AS (SELECT DISTINCT u.c, u.t COLLATE "C" FROM unnest($1::bytea[], $2::text[]) AS u(c, t)),
     inserted AS (
       INSERT INTO nft_dict (collection_addr, token_id) SELECT c, t FROM input
       ON CONFLICT (collection_addr, token_id) DO NOTHING RETURNING id, collection_addr AS c, token_id AS t)
     SELECT id, c, t FROM inserted
     UNION ALL
     SELECT d.id, d.collection_addr, d.token_id FROM nft_dict d JOIN input i ON d.collection_addr = i.c AND d.token_id = i.t`,
    [list.map((k) => k.collection), list.map((k) => k.tokenId)],
  );
  return new Map(rows.map((r) => [tokenKey(r.c, r.t), Number(r.id)]));
}

/** Move object address → nft id: objects minted in this batch, else live tokens in the database. */
async function resolveObjects(
  tx: Queryable,
  blocks: readonly NftBlockInput[],
  ids: Map<string, number>,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const wanted = new Map<string, Buffer>();
  for (const b of blocks) {
    for (const ch of b.nft.changes) {
      if (ch.kind === 'mint' && ch.objectAddr) {
        const id = ids.get(tokenKey(ch.ref.collection, ch.ref.tokenId));
        if (id !== undefined) out.set(hexKey(ch.objectAddr), id);
      } else if ('object' in ch.ref && !out.has(hexKey(ch.ref.object))) {
        wanted.set(hexKey(ch.ref.object), asBuffer(ch.ref.object));
      }
    }
  }
  for (const k of out.keys()) wanted.delete(k);
  if (wanted.size === 0) return out;
  const { rows } = await tx.query<{ nft_id: number; object_addr: Uint8Array }>(
    `SELECT nft_id, object_addr FROM nft WHERE object_addr = ANY($1::bytea[])`,
    [[...wanted.values()]],
  );
  for (const r of rows) if (!out.has(hexKey(r.object_addr))) out.set(hexKey(r.object_addr), Number(r.nft_id));
  return out;
}

function refId(
  ch: NftChange,
  ids: Map<string, number>,
  objects: Map<string, number>,
  known: Set<string>,
): number | undefined {
  if ('object' in ch.ref) return objects.get(hexKey(ch.ref.object));
  if (!known.has(hexKey(ch.ref.collection))) return undefined;
  return ids.get(tokenKey(ch.ref.collection, ch.ref.tokenId));
}

async function loadTokens(tx: Queryable, ids: number[]): Promise<Map<number, TokenState>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<{
    nft_id: number;
    collection_addr: Uint8Array;
    token_id: string;
    object_addr: Uint8Array | null;
    owner_id: number;
    uri: string;
    height: number;
    ts: string;
  }>(
    `SELECT nft_id, collection_addr, token_id, object_addr, owner_id, uri, height, to_json("timestamp")#>>'{}' AS ts
       FROM nft WHERE nft_id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(
    rows.map((r) => [
      Number(r.nft_id),
      {
        id: Number(r.nft_id),
        collection: asBuffer(r.collection_addr),
        tokenId: r.token_id,
        objectAddr: r.object_addr ? asBuffer(r.object_addr) : null,
        live: true,
        ownerId: Number(r.owner_id),
        uri: r.uri,
        height: Number(r.height),
        timestamp: r.ts,
      },
    ]),
  );
}

/** One change on the folded state; a later change to the same token wins. */
function applyChange(
  state: Map<number, TokenState>,
  id: number,
  ch: NftChange,
  b: NftBlockInput,
  accountId: (bytes: Uint8Array) => number,
): void {
  const cur = state.get(id);
  const at = { height: b.height, timestamp: b.timestamp };
  if (ch.kind === 'mint') {
    state.set(id, {
      id,
      collection: asBuffer(ch.ref.collection),
      tokenId: ch.ref.tokenId,
      objectAddr: ch.objectAddr ? asBuffer(ch.objectAddr) : null,
      live: true,
      ownerId: accountId(ch.owner),
      uri: ch.uri,
      ...at,
    });
  } else if (ch.kind === 'transfer') {
    if (cur?.live) Object.assign(cur, { ownerId: accountId(ch.owner), ...at });
    else if ('collection' in ch.ref) {
      // EVM / Wasm: a transfer of a token minted before indexing began still places it (docs/ingest.md §7.2).
      state.set(id, {
        id,
        collection: asBuffer(ch.ref.collection),
        tokenId: ch.ref.tokenId,
        objectAddr: null,
        live: true,
        ownerId: accountId(ch.owner),
        uri: '',
        ...at,
      });
    }
  } else if (ch.kind === 'uri') {
    if (cur?.live) Object.assign(cur, { uri: ch.uri, ...at });
  } else if (cur) {
    cur.live = false;
  }
}

/** Token rows, per-collection counts and per-owner holdings from the before/after states. */
async function storeTokens(
  tx: Queryable,
  before: Map<number, TokenState>,
  after: Map<number, TokenState>,
): Promise<void> {
  const dead: number[] = [];
  const live: TokenState[] = [];
  const holding = new Map<string, { owner: number; collection: Buffer; delta: number }>();
  const counts = new Map<string, { collection: Buffer; delta: number }>();
  const bump = (s: TokenState, by: number) => {
    const hk = `${s.ownerId}/${hexKey(s.collection)}`;
    const h = holding.get(hk) ?? { owner: s.ownerId, collection: s.collection, delta: 0 };
    h.delta += by;
    holding.set(hk, h);
    const c = counts.get(hexKey(s.collection)) ?? { collection: s.collection, delta: 0 };
    c.delta += by;
    counts.set(hexKey(s.collection), c);
  };
  for (const [id, s] of after) {
    const old = before.get(id);
    if (old) bump(old, -1);
    if (s.live) {
      bump(s, 1);
      live.push(s);
    } else if (old) dead.push(id);
  }
  if (dead.length > 0) await tx.query(`DELETE FROM nft WHERE nft_id = ANY($1::bigint[])`, [dead]);
  if (live.length > 0) {
    await tx.query(
      `INSERT INTO nft (nft_id, collection_addr, token_id, object_addr, owner_id, uri, height, "timestamp")
       SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::bytea[], $5::bigint[], $6::text[], $7::bigint[], $8::timestamptz[])
       ON CONFLICT (nft_id) DO UPDATE SET object_addr = EXCLUDED.object_addr, owner_id = EXCLUDED.owner_id,
         uri = EXCLUDED.uri, height = EXCLUDED.height, "timestamp" = EXCLUDED."timestamp"`,
      [
        live.map((s) => s.id),
        live.map((s) => s.collection),
        live.map((s) => s.tokenId),
        live.map((s) => s.objectAddr),
        live.map((s) => s.ownerId),
        live.map((s) => s.uri),
        live.map((s) => s.height),
        live.map((s) => s.timestamp),
      ],
    );
  }
  await applyHoldingDeltas(
    tx,
    [...holding.values()].filter((x) => x.delta !== 0),
  );
  const c = [...counts.values()].filter((x) => x.delta !== 0);
  if (c.length > 0) {
    await tx.query(
      `UPDATE nft_collection n SET nft_count = n.nft_count + d.delta
         FROM unnest($1::bytea[], $2::bigint[]) AS d(addr, delta) WHERE n.addr = d.addr`,
      [c.map((x) => x.collection), c.map((x) => x.delta)],
    );
  }
}

/**
 * Holdings change by deltas: decrements update existing rows (an insert would trip the CHECK
 * before ON CONFLICT is considered), increments upsert, and rows that reach 0 are deleted.
 */
async function applyHoldingDeltas(
  tx: Queryable,
  deltas: Array<{ owner: number; collection: Buffer; delta: number }>,
): Promise<void> {
  if (deltas.length === 0) return;
  const down = deltas.filter((d) => d.delta < 0);
  const up = deltas.filter((d) => d.delta > 0);
  if (down.length > 0) {
    await tx.query(
      `UPDATE nft_holding h SET nft_count = h.nft_count + d.delta
         FROM unnest($1::bigint[], $2::bytea[], $3::bigint[]) AS d(owner_id, collection_addr, delta)
        WHERE h.owner_id = d.owner_id AND h.collection_addr = d.collection_addr`,
      [down.map((x) => x.owner), down.map((x) => x.collection), down.map((x) => x.delta)],
    );
  }
  if (up.length > 0) {
    await tx.query(
      `INSERT INTO nft_holding (owner_id, collection_addr, nft_count)
       SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bigint[])
       ON CONFLICT (owner_id, collection_addr) DO UPDATE SET nft_count = nft_holding.nft_count + EXCLUDED.nft_count`,
      [up.map((x) => x.owner), up.map((x) => x.collection), up.map((x) => x.delta)],
    );
  }
  await tx.query(
    `DELETE FROM nft_holding WHERE nft_count = 0
       AND (owner_id, collection_addr) IN (SELECT * FROM unnest($1::bigint[], $2::bytea[]))`,
    [down.map((x) => x.owner), down.map((x) => x.collection)],
  );
}

async function insertEdges(tx: Queryable, edges: Set<string>): Promise<void> {
  if (edges.size === 0) return;
  const pairs = [...edges].map((e) => e.split(':').map(Number) as [number, number]);
  await tx.query(
    `INSERT INTO tx_nfts (nft_id, sequence) SELECT * FROM unnest($1::bigint[], $2::bigint[])
     ON CONFLICT DO NOTHING`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
}
