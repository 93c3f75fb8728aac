import { describe, expect, it } from 'vitest';
import { toBech32 } from '../../src/shared/address.js';
import type { Db } from '../../src/store/db.js';
import type { Simulator } from '../../src/sim/types.js';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';

const HEAD = 60;

/** Everything ingest stored, per tx, in the truth's shape. */
async function storedTxs(db: Db) {
  const { rows } = await db.query<{
    sequence: number;
    hash: Uint8Array;
    height: number;
    signer: Uint8Array;
    data: string;
    accounts: Uint8Array[];
    signer_flags: boolean[];
    msg_types: string[];
  }>(`
    SELECT t.sequence, t.hash, t.height, s.account AS signer, t.data,
           array(SELECT d.account FROM tx_accounts a JOIN account_dict d ON d.id = a.account_id
                  WHERE a.sequence = t.sequence ORDER BY d.account) AS accounts,
           array(SELECT a.signer FROM tx_accounts a JOIN account_dict d ON d.id = a.account_id
                  WHERE a.sequence = t.sequence ORDER BY d.account) AS signer_flags,
           array(SELECT m.msg_type FROM tx_msg_types x JOIN msg_type_dict m ON m.id = x.msg_type_id
                  WHERE x.sequence = t.sequence ORDER BY m.msg_type) AS msg_types
      FROM tx t JOIN account_dict s ON s.id = t.signer_id ORDER BY t.sequence`);
  return rows;
}

async function expectMatchesTruth(db: Db, sim: Simulator) {
  const txs = await storedTxs(db);
  const truthTxs = Array.from({ length: HEAD }, (_, i) => sim.truth.block(i + 1).txs).flat();
  expect(txs.length).toBe(truthTxs.length);
  txs.forEach((row, i) => {
    const truth = truthTxs[i]!;
    expect(row.sequence).toBe(i + 1);
    expect(Buffer.from(row.hash).toString('hex').toUpperCase()).toBe(truth.hash);
    expect(row.height).toBe(truth.height);
    expect(toBech32(row.signer, 'init')).toBe(truth.signer);
    expect(row.accounts.map((a) => toBech32(a, 'init')).sort()).toEqual([...truth.accounts].sort());
    const signerFlags = row.accounts.map((a) => toBech32(a, 'init') === truth.signer);
    expect(row.signer_flags).toEqual(signerFlags);
    expect([...row.msg_types].sort()).toEqual([...truth.msgTypes].sort());
    const data = JSON.parse(row.data) as { txhash: string; code: number; height: string };
    expect(data).toMatchObject({ txhash: truth.hash, code: truth.code, height: String(truth.height) });
  });

  const blocks = await db.query<{ height: number; hash: Uint8Array; gas_used: number; tx_count: number }>(
    'SELECT height, hash, gas_used, tx_count FROM block ORDER BY height',
  );
  expect(blocks.rows.map((b) => b.height)).toEqual(Array.from({ length: HEAD }, (_, i) => i + 1));
  for (const b of blocks.rows) {
    const truth = sim.truth.block(b.height);
    expect(Buffer.from(b.hash).toString('hex').toUpperCase()).toBe(truth.hash);
    expect(String(b.gas_used)).toBe(truth.gasUsed);
    expect(b.tx_count).toBe(truth.txs.length);
  }
}

describe.each(testDbFactories())('ingest end to end on $name', (factory) => {
  for (const vm of ['move'] as const) {
    it(`indexes ${HEAD} ${vm} blocks exactly as the simulator's ground truth`, async () => {
      const { db, dispose } = await factory.create();
      const indexed = await indexSimulator({ db, vm, head: HEAD, txsPerBlock: '0-8' });
      try {
        await expectMatchesTruth(db, indexed.sim);
      } finally {
        await indexed.close();
        await dispose();
      }
    });
  }
});
