import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import type { Db } from '../driver/db.js';
import {
  accountSummary,
  accountTxWalkStep,
  committedTxSequence,
  type AccountTxWalkStep,
} from './account-activity.js';

/** Ten txs (sequence = height = i); account 1 in every one (signer of the even ones), type 7 on i % 3 = 0. */
async function seed(db: Db) {
  for (let i = 1; i <= 10; i++) {
    await db.query('INSERT INTO tx (sequence, hash, height, signer_id, data) VALUES ($1, $2, $1, 1, $3)', [
      i,
      Buffer.from([i]),
      `{"n":${i},"timestamp":"2026-11-28T00:00:0${i % 10}Z"}`,
    ]);
    await db.query('INSERT INTO tx_accounts (account_id, sequence, signer) VALUES (1, $1, $2)', [
      i,
      i % 2 === 0,
    ]);
    if (i % 3 === 0) await db.query('INSERT INTO tx_msg_types (msg_type_id, sequence) VALUES (7, $1)', [i]);
  }
  await db.query('INSERT INTO tx_account_counts (account_id, txs, signed) VALUES (1, 10, 5)');
  await db.query(
    "INSERT INTO tx_account_msg_type_sets (account_id, type_ids, txs, signed) VALUES (1, '{7}', 3, 1), (1, '{8}', 7, 4)",
  );
  await db.query("INSERT INTO rich_list (denom, account_id, amount) VALUES ('umin', 1, 5), ('uusdc', 1, 0)");
}

const ns = (rows: { data: string | Buffer }[]) =>
  rows.map((r) => (JSON.parse(String(r.data)) as { n: number }).n);

describe.each(testDbFactories())('account activity reader on $name', (factory) => {
  it('pages an account within a snapshot sequence, both ways, with filters and kept counts', async () => {
    const { db, dispose } = await factory.create();
    try {
      const ctx = { db, countTimeoutMs: 1000 };
      expect(await committedTxSequence(ctx)).toBe(0);
      await seed(db);
      expect(await committedTxSequence(ctx)).toBe(10);
      const base = { accountId: 1, signerOnly: false, msgTypeIds: undefined, atMost: 8, limit: 3 };
      const step = (w: Partial<AccountTxWalkStep> & { desc: boolean }) =>
        accountTxWalkStep(ctx, { ...base, countTotal: false, ...w });
      const seqs = async (w: Partial<AccountTxWalkStep> & { desc: boolean }) => ns((await step(w)).rows);
      expect(await seqs({ desc: true })).toEqual([8, 7, 6]);
      expect(await seqs({ desc: true, after: 6 })).toEqual([5, 4, 3]);
      expect(await seqs({ desc: false, after: 6 })).toEqual([7, 8]);
      expect(await seqs({ desc: true, signerOnly: true })).toEqual([8, 6, 4]);
      expect(await seqs({ desc: false, msgTypeIds: [7] })).toEqual([3, 6]);
      expect(await seqs({ desc: true, msgTypeIds: [] })).toEqual([]);
      expect(await seqs({ accountId: 2, desc: true })).toEqual([]);
      // The snapshot: the given one, else the committed sequence read by the same statement.
      expect(await step({ desc: true })).toMatchObject({ snapshot: 8, total: 0 });
      expect(await step({ desc: true, atMost: undefined, limit: 1 })).toMatchObject({ snapshot: 10 });
      expect(ns((await step({ desc: true, atMost: undefined, limit: 1 })).rows)).toEqual([10]);
      expect(await step({ accountId: 2, desc: true, atMost: undefined })).toEqual({
        snapshot: 10,
        rows: [],
        total: 0,
      });
      // The kept counts (no scan): the counter, or the sum over the intersecting type sets.
      const total = async (w: Partial<AccountTxWalkStep>) =>
        (await step({ desc: true, countTotal: true, ...w })).total;
      expect(await total({})).toBe(10);
      expect(await total({ signerOnly: true })).toBe(5);
      expect(await total({ msgTypeIds: [7] })).toBe(3);
      expect(await total({ msgTypeIds: [] })).toBe(0);
      expect(await total({ accountId: 2 })).toBe(0);
    } finally {
      await dispose();
    }
  });

  it('summarises counts, first and last tx, and balances above zero', async () => {
    const { db, dispose } = await factory.create();
    try {
      const ctx = { db, countTimeoutMs: 1000 };
      await seed(db);
      const s = await accountSummary(ctx, 1, { nfts: true, balances: true });
      expect({ ...s, first: ns([{ data: s.first! }])[0], last: ns([{ data: s.last! }])[0] }).toEqual({
        txs: 10,
        signed: 5,
        first: 1,
        last: 10,
        nfts: 0,
        balances: [{ denom: 'umin', amount: '5' }],
      });
      expect(await accountSummary(ctx, 2, { nfts: false, balances: false })).toEqual({
        txs: 0,
        signed: 0,
        nfts: 0,
        balances: [],
      });
    } finally {
      await dispose();
    }
  });
});
