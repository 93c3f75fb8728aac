import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { describe, expect, it } from 'vitest';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';

/** Long enough for burns, re-mints (slot ≥ 25) and IBC receipts on every VM. */
const HEAD = Number(process.env.NFT_TEST_HEAD ?? 2_000);

describe.each(testDbFactories())('NFT ingest on $name', (factory) => {
  for (const vm of ['move', 'wasm', 'evm'] as const) {
    it(
      `indexes ${HEAD} ${vm} blocks: NFT tables equal the simulator's truth`,
      { timeout: 600_000 },
      async () => {
        const { db, dispose } = await factory.create();
        const indexed = await indexSimulator({ db, vm, head: HEAD, txsPerBlock: '0-3' });
        try {
          await expectNftMatchesTruth(db, indexed.sim, HEAD);
          expect(await expectNftTxEdgesMatchEvents(db, vm)).toBeGreaterThan(HEAD / 20);
          await expectIngestMatchesTruth(db, indexed.sim, HEAD);
        } finally {
          await indexed.close();
          await dispose();
        }
      },
    );
  }
});
