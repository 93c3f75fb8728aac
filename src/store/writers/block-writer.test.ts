import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { createBlockWriter } from './block-writer.js';
import type { BlockRows } from './rows.js';

const acct = (n: number, len = 20) => Buffer.alloc(len, n);

function blockRows(height: number, txCount: number): BlockRows {
  return {
    block: {
      height,
      hash: Buffer.alloc(32, height),
      timestamp: `2025-01-01T00:00:${String(height).padStart(2, '0')}.123456789Z`,
      blockTimeMs: 1000,
      proposer: 'initvaloper1xyz',
      gasUsed: '10',
      gasWanted: '20',
      txCount,
      totalFee: '[]',
    },
    txs: Array.from({ length: txCount }, (_, i) => ({
      hash: Buffer.alloc(32, 100 + height * 10 + i),
      height,
      signer: acct(1),
      accounts: [acct(1), acct(2 + i, 32)],
      msgTypes: [
        'cosmos.bank.v1beta1.MsgSend',
        i % 2 ? 'initia.move.v1.MsgExecute' : 'cosmos.bank.v1beta1.MsgSend',
      ],
      data: `{"h":${height},"i":${i}}`,
    })),
    evmTxs: [],
  };
}

describe.each(testDbFactories())('block writer on $name', (factory) => {
  it('writes batches with gapless sequences, interned dictionaries and the checkpoint', async () => {
    const { db, dispose } = await factory.create();
    try {
      const writer = await createBlockWriter(db);
      expect(writer.checkpoint().height).toBe(0);
      await writer.write([blockRows(1, 0), blockRows(2, 3)]);
      await writer.write([blockRows(3, 2)]);
      expect(writer.checkpoint()).toMatchObject({ height: 3, txSequence: 5 });

      const txs = await db.query<{ sequence: number; height: number }>(
        'SELECT sequence, height FROM tx ORDER BY sequence',
      );
      expect(txs.rows.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5]);
      const accounts = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM account_dict');
      expect(accounts.rows[0]?.n).toBe(4); // signer + three distinct 32-byte accounts
      const signerEdges = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM tx_accounts WHERE signer',
      );
      expect(signerEdges.rows[0]?.n).toBe(5);
      const types = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx_msg_types');
      expect(types.rows[0]?.n).toBe(5 + 2); // MsgSend on all five, MsgExecute on the two odd ones

      const resumed = await createBlockWriter(db);
      expect(resumed.checkpoint()).toMatchObject({ height: 3, txSequence: 5, evmSequence: 0 });
      expect(resumed.checkpoint().blockTimestamp).toMatch(/^2025-01-01T00:00:03\.123457/);
    } finally {
      await dispose();
    }
  });

  it('rejects an out-of-order batch and a stale writer, leaving nothing behind', async () => {
    const { db, dispose } = await factory.create();
    try {
      const a = await createBlockWriter(db);
      const b = await createBlockWriter(db);
      await expect(a.write([blockRows(2, 1)])).rejects.toThrow(/expected height 1/);
      await a.write([blockRows(1, 1)]);
      await expect(b.write([blockRows(1, 1)])).rejects.toThrow();
      const blocks = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM block');
      expect(blocks.rows[0]?.n).toBe(1);
      const txs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx');
      expect(txs.rows[0]?.n).toBe(1);
    } finally {
      await dispose();
    }
  });
});
