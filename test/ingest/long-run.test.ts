import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

const HEAD = 1000;

/**
 * A long run per VM: the stages' rows equal the simulator's truth at several heights on the way
 * (each run stops there, and the next resumes from the checkpoints), and at the end.
 */
describe.each(testDbFactories())('stages over a long run on $name', (factory) => {
  for (const vm of ['evm', 'move', 'wasm'] as const) {
    it(
      `${vm}: internal txs and balances equal the truth at every stop of ${HEAD} blocks`,
      { timeout: 300_000 },
      async () => {
        const { db, dispose } = await factory.create();
        const checked: number[] = [];
        const expectTruth = async (height: number, sim: Parameters<typeof expectRichListMatchesTruth>[1]) => {
          if (vm === 'evm') await expectInternalTxsMatchTruth(db, sim, height);
          expect(await expectRichListMatchesTruth(db, sim, height)).toBeGreaterThan(100);
          checked.push(height);
        };
        const indexed = await indexSimulator({
          db,
          vm,
          head: HEAD,
          txsPerBlock: '0-4',
          sim: { fastSignatures: true },
          stops: { heights: [97, 250, 503, 781], at: expectTruth },
        });
        try {
          await expectTruth(HEAD, indexed.sim);
          expect(checked).toEqual([97, 250, 503, 781, HEAD]);
        } finally {
          await indexed.close();
          await dispose();
        }
      },
    );
  }
});
