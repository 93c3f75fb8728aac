import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import type { Db } from '../driver/db.js';
import { createBlockWriter } from './block-writer.js';
import type { NftBlockRows, NftChange } from './nft-rows.js';
import type { BlockRows } from './rows.js';

const acct = (n: number) => Buffer.alloc(20, n);
const COLL = Buffer.alloc(32, 0xc0);
const OTHER = Buffer.alloc(32, 0xd0);
const ref = (tokenId: string, collection = COLL) => ({ collection, tokenId });

function block(height: number, txCount: number, nft: Partial<NftBlockRows>): BlockRows {
  return {
    block: {
      height,
      hash: Buffer.alloc(32, height),
      timestamp: `2025-01-01T00:00:${String(height).padStart(2, '0')}Z`,
      blockTimeMs: 1000,
      proposer: 'initvaloper1xyz',
      gasUsed: '1',
      gasWanted: '1',
      txCount,
      totalFee: '[]',
    },
    txs: Array.from({ length: txCount }, (_, i) => ({
      hash: Buffer.alloc(32, height * 16 + i),
      height,
      signer: acct(1),
      accounts: [acct(1)],
      msgTypes: ['x.Msg'],
      data: '{}',
    })),
    evmTxs: [],
    nft: { collections: [], changes: [], originNames: [], ...nft },
  };
}

const mint = (tokenId: string, owner: number, txIndex: number, uri = `u${tokenId}`): NftChange => ({
  kind: 'mint',
  ref: ref(tokenId),
  objectAddr: null,
  owner: acct(owner),
  uri,
  txIndex,
});

async function state(db: Db) {
  const tokens = await db.query<{ token_id: string; owner: number; uri: string; height: number }>(
    `SELECT n.token_id, d.account AS owner, n.uri, n.height FROM nft n JOIN account_dict d ON d.id = n.owner_id ORDER BY token_id`,
  );
  const coll = await db.query<{ nft_count: number; origin_name: string; name_key: string }>(
    'SELECT nft_count, origin_name, name_key FROM nft_collection',
  );
  const holdings = await db.query<{ n: number }>('SELECT nft_count AS n FROM nft_holding ORDER BY owner_id');
  const edges = await db.query<{ token_id: string; sequence: number }>(
    `SELECT d.token_id, e.sequence FROM tx_nfts e JOIN nft_dict d ON d.id = e.nft_id ORDER BY d.token_id, e.sequence`,
  );
  return {
    tokens: tokens.rows.map((t) => ({
      ...t,
      owner: Buffer.from(t.owner as unknown as Uint8Array)[0],
      height: Number(t.height),
    })),
    collection: coll.rows.map((c) => ({ ...c, nft_count: Number(c.nft_count) })),
    holdings: holdings.rows.map((h) => Number(h.n)),
    edges: edges.rows.map((e) => `${e.token_id}@${e.sequence}`),
  };
}

describe.each(testDbFactories())('NFT writer on $name', (factory) => {
  it('folds a batch in chain order: burn then re-mint in one block, exact counts, holdings, edges, origin names', async () => {
    const { db, dispose } = await factory.create();
    try {
      const writer = await createBlockWriter(db);
      await writer.write([
        block(1, 2, {
          collections: [
            { addr: COLL, height: 1, timestamp: '2025-01-01T00:00:01Z', name: 'My Col-1', creator: acct(9) },
          ],
          changes: [mint('1', 2, 0), mint('2', 2, 1)],
        }),
        block(2, 2, {
          // token 1: burned and minted again in the same block (the reference keeps the old row)
          changes: [
            { kind: 'burn', ref: ref('1'), txIndex: 0 },
            mint('1', 3, 1, 'again'),
            { kind: 'transfer', ref: ref('7', OTHER), owner: acct(4), txIndex: 1 }, // unknown collection
          ],
          originNames: [{ l2Name: 'My Col-1', l1Name: 'L1 Name' }],
        }),
      ]);
      expect(await state(db)).toEqual({
        tokens: [
          { token_id: '1', owner: 3, uri: 'again', height: 2 },
          { token_id: '2', owner: 2, uri: 'u2', height: 1 },
        ],
        collection: [{ nft_count: 2, origin_name: 'L1 Name', name_key: 'mycol1' }],
        holdings: [1, 1],
        edges: ['1@1', '1@3', '1@4', '2@2'],
      });

      // The last burns: nft_count goes to 0 and the holdings disappear (the reference keeps the old count).
      await writer.write([
        block(3, 1, { changes: [{ kind: 'transfer', ref: ref('2'), owner: acct(3), txIndex: 0 }] }),
        block(4, 1, {
          changes: [
            { kind: 'burn', ref: ref('1'), txIndex: 0 },
            { kind: 'burn', ref: ref('2'), txIndex: 0 },
          ],
        }),
      ]);
      const after = await state(db);
      expect(after.tokens).toEqual([]);
      expect(after.collection[0]!.nft_count).toBe(0);
      expect(after.holdings).toEqual([]);
      expect(after.edges).toEqual(['1@1', '1@3', '1@4', '1@6', '2@2', '2@5', '2@6']);
    } finally {
      await dispose();
    }
  });

  it('rolls NFT rows back with the block when the transaction fails', async () => {
    const { db, dispose } = await factory.create();
    try {
      const writer = await createBlockWriter(db);
      await writer.write([
        block(1, 1, {
          collections: [
            { addr: COLL, height: 1, timestamp: '2025-01-01T00:00:01Z', name: 'c', creator: acct(9) },
          ],
          changes: [mint('1', 2, 0)],
        }),
      ]);
      // Another writer moved the checkpoint: the guarded update fails after the NFT rows were written.
      await db.query(`UPDATE checkpoint SET height = 99 WHERE stream = 'blocks'`);
      await expect(writer.write([block(2, 1, { changes: [mint('2', 2, 0)] })])).rejects.toThrow(
        /checkpoint moved/,
      );
      const s = await state(db);
      expect(s.tokens.map((t) => t.token_id)).toEqual(['1']);
      expect(s.collection[0]!.nft_count).toBe(1);
      expect(s.edges).toEqual(['1@1']);
    } finally {
      await dispose();
    }
  });
});
