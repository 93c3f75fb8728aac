import { describe, expect, it } from 'vitest';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';
import { expectStoredTxsMatchNodeRest } from '../helpers/tx-rest-shape.js';

const HEAD = 60;

/**
 * Each VM once and each store once (heavySuiteVms): the collectors differ by VM, the SQL they
 * write does not differ by store (the drivers are the storage tests').
 */
describe.each(testDbFactories())('ingest end to end on $name', (factory) => {
  for (const vm of heavySuiteVms(factory.name)) {
    it(`indexes ${HEAD} ${vm} blocks exactly as the simulator's ground truth`, async () => {
      const { db, dispose } = await factory.create();
      const indexed = await indexSimulator({ db, vm, head: HEAD, txsPerBlock: '0-8' });
      try {
        await expectIngestMatchesTruth(db, indexed.sim, HEAD);
        if (vm === 'evm')
          expect(await expectInternalTxsMatchTruth(db, indexed.sim, HEAD)).toBeGreaterThan(HEAD);
        expect(await expectRichListMatchesTruth(db, indexed.sim, HEAD)).toBeGreaterThan(10);
        // Stored tx JSON against the node's REST answer; Move and EVM relay NFT packets whose
        // empty memo is the decision-8 case (ics721 on Wasm emits no memo attribute).
        const emptyValues = await expectStoredTxsMatchNodeRest(db, indexed.urls.rest);
        if (vm !== 'wasm') expect(emptyValues).toBeGreaterThan(0);
      } finally {
        await indexed.close();
        await dispose();
      }
    });
  }
});
