import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import type { NftBlockRows, NftChange } from '../../src/store/writers/nft-rows.js';
import { computeScores } from '../../src/vip/scores/compute.js';
import { parseRules } from '../../src/vip/scores/rules.js';
import { testDbFactories } from '../helpers/db.js';
import { copyRows } from '../helpers/table-copy.js';
import { accountOf, hexOf, writeScoresChain, type BlockSpec } from './scores-chain.js';

/**
 * nft_mints / nft_received over nft_receipt, which the NFT writer fills from the collectors'
 * changes (migrations/20261126_0011_nft_receipts.sql): a mint counts for the owner at the end of
 * its tx, other transfers for each new owner.
 */

const [A, B, C, D, E] = ['A', 'B', 'C', 'D', 'E'].map((l) => accountOf(`nft-${l}`));
const P = accountOf('collection-P');
const Q = accountOf('collection-Q');
const T0 = Date.UTC(2026, 10, 2);
const ref = (collection: Uint8Array, tokenId: string) => ({ collection, tokenId });
const mint = (txIndex: number | null, c: Uint8Array, id: string, owner: Uint8Array): NftChange => ({
  kind: 'mint',
  ref: ref(c, id),
  objectAddr: null,
  owner,
  uri: '',
  txIndex,
});
const move = (txIndex: number | null, c: Uint8Array, id: string, owner: Uint8Array): NftChange => ({
  kind: 'transfer',
  ref: ref(c, id),
  owner,
  txIndex,
});
const nft = (changes: NftChange[], collections: Uint8Array[] = []): NftBlockRows => ({
  collections: collections.map((addr) => ({
    addr,
    height: 1,
    timestamp: new Date(T0).toISOString(),
    name: 'c',
    creator: A!,
  })),
  changes,
  originNames: [],
});

const BLOCKS: BlockSpec[] = [
  {
    timeMs: T0,
    txs: [{ signer: A! }],
    // Minted to the creator and moved to B in the same tx (as Move does): B received the mint.
    nft: nft([mint(0, P, '1', A!), move(0, P, '1', B!), mint(0, P, '2', C!)], [P, Q]),
  },
  {
    timeMs: T0 + 1000,
    txs: [{ signer: B! }, { signer: C! }],
    nft: nft([move(0, P, '1', D!), move(1, P, '2', D!), move(1, P, '2', E!)]),
  },
  {
    timeMs: T0 + 2000,
    txs: [{ signer: E! }],
    // Token 1 "moved" to its holder D: no receipt.
    nft: nft([mint(0, Q, '3', E!), move(null, Q, '3', A!), move(0, P, '1', D!)]),
  },
];

const rules = (kind: string, collection?: string) =>
  parseRules(
    `version: 1\nmetrics:\n  - { name: m, kind: ${kind}, weight: 1${collection ? `, collection: "${collection}"` : ''} }\n`,
    'r.yaml',
  );

describe.each(testDbFactories())('NFT metrics on $name', (factory) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await factory.create());
    await writeScoresChain(db, { chainId: 'nft-1', vm: 'evm' }, BLOCKS, 2);
  });
  afterAll(() => dispose());

  const values = async (kind: string, from: string, to: string, collection?: string) => {
    const r = await computeScores(
      { db },
      {
        stage: 1n,
        rules: { rules: rules(kind, collection), sha256: '', path: 'r.yaml' },
        window: { from, to },
      },
    );
    return Object.fromEntries(r.rows.map((row) => [row.address, row.amount]));
  };

  it('nft_mints counts tokens by the owner at the end of the minting tx', async () => {
    expect(await values('nft_mints', '1', '3')).toEqual({
      [hexOf(B!)]: 1n,
      [hexOf(C!)]: 1n,
      [hexOf(E!)]: 1n,
    });
    expect(await values('nft_mints', '1', '3', hexOf(P))).toEqual({ [hexOf(B!)]: 1n, [hexOf(C!)]: 1n });
    expect(await values('nft_mints', '2', '3')).toEqual({ [hexOf(E!)]: 1n });
  });

  it('nft_received counts transfers into each new owner, block-level ones too, not mints nor self-transfers', async () => {
    expect(await values('nft_received', '1', '3')).toEqual({
      [hexOf(D!)]: 2n,
      [hexOf(E!)]: 1n,
      [hexOf(A!)]: 1n,
    });
    expect(await values('nft_received', '1', '2', hexOf(Q))).toEqual({});
  });

  it('refuses heights indexed before the receipts were recorded', async () => {
    await db.query('INSERT INTO nft_receipt_coverage (from_height) VALUES (2)');
    try {
      await expect(values('nft_mints', '1', '3')).rejects.toMatchObject({ code: 'window_not_indexed' });
      expect(await values('nft_mints', '2', '3')).toEqual({ [hexOf(E!)]: 1n });
    } finally {
      await db.query('DELETE FROM nft_receipt_coverage');
    }
  });

  it('the migration marks heights indexed before it as not covered', async () => {
    // Written at today's schema (the writers need its tables), copied into one as 0009 left it.
    const reference = await factory.create();
    const other = await factory.create({ upTo: '20261126_0009_event_attribute_values.sql' });
    try {
      await writeScoresChain(
        reference.db,
        { chainId: 'nft-1', vm: 'evm' },
        BLOCKS.map((b) => ({ timeMs: b.timeMs, txs: b.txs })),
        2,
      );
      await copyRows(reference.db, other.db);
      const { migrate } = await import('../../src/store/migrations/migrate.js');
      await migrate(other.db);
      const { rows } = await other.db.query<{ from_height: number }>(
        'SELECT from_height FROM nft_receipt_coverage',
      );
      expect(Number(rows[0]?.from_height)).toBe(4);
    } finally {
      await other.dispose();
      await reference.dispose();
    }
  });
});
