import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import type { TxRow } from '../../src/store/writers/rows.js';
import { testDbFactories } from '../helpers/db.js';
import { unpackStoredTxs } from '../helpers/stored-tx.js';
import { oldFormatTxCases as cases, type OldFormatTxCase as Case } from '../helpers/old-tx-formats.js';

const MIGRATION = '20261126_0009_event_attribute_values.sql';

function txRow(c: Case, i: number): TxRow {
  const signer = Buffer.alloc(20, 1);
  return {
    hash: Buffer.alloc(32, i),
    height: 1,
    signer,
    accounts: [signer],
    msgTypes: ['x.Msg'],
    data: c.old,
  };
}

describe.each(testDbFactories())('migration completing event attributes on $name', (factory) => {
  it('rewrites old-form events to the renderer output, and nothing else', async () => {
    const all = cases();
    // The real samples include empty values (IBC memos, fees), so rows really change.
    expect(all.filter((c) => c.old !== c.expected).length).toBeGreaterThanOrEqual(8);
    const { db, dispose } = await factory.create();
    try {
      // The migration only rewrites data, so a fully migrated database that forgets it was
      // applied is a database from before it (and much faster to get than a partial migrate).
      await db.query('DELETE FROM schema_migrations WHERE name = $1', [MIGRATION]);
      const writer = await createBlockWriter(db);
      await writer.write([
        {
          block: {
            height: 1,
            hash: Buffer.alloc(32, 9),
            timestamp: '2025-06-01T12:00:00Z',
            blockTimeMs: 1000,
            proposer: 'initvaloper1x',
            gasUsed: '0',
            gasWanted: '0',
            txCount: all.length,
            totalFee: '[]',
          },
          txs: all.map(txRow),
          evmTxs: [],
        },
      ]);
      // Text rows, as a database of that time holds them (not packed: migration 0020).
      await unpackStoredTxs(db);
      const versionsBefore = await rowVersions(db);

      expect((await migrate(db)).applied).toEqual([MIGRATION]);

      const { rows } = await db.query<{ sequence: number; data: string }>(
        'SELECT sequence, data FROM tx ORDER BY sequence',
      );
      const versionsAfter = await rowVersions(db);
      rows.forEach((row, i) => {
        const c = all[i]!;
        expect(row.data, c.name).toBe(c.expected);
        // Rows already complete keep their row version: the UPDATE did not touch them.
        if (c.old === c.expected)
          expect(versionsAfter.get(row.sequence), c.name).toBe(versionsBefore.get(row.sequence));
      });
    } finally {
      await dispose();
    }
  });
});

async function rowVersions(db: Db): Promise<Map<number, string>> {
  const { rows } = await db.query<{ sequence: number; v: string }>(
    'SELECT sequence, ctid::text AS v FROM tx',
  );
  return new Map(rows.map((r) => [Number(r.sequence), r.v]));
}
