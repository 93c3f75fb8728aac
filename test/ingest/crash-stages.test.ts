import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import { crashTargets, runIndexer, seeded } from '../helpers/crash.js';
import { ingestFrom } from '../helpers/ingest.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

const HEAD = 300;
const KILLS = 6;

/**
 * The stages run the same SQL on either store; what differs by store is the recovery of a killed
 * database, and PGlite's is crash.test.ts's (Move's rich-list stage killed with the block stream,
 * checked against the truth). So with PostgreSQL in the run this file runs on PostgreSQL alone.
 */
const targets = crashTargets();
const stageTargets = targets.length > 1 ? targets.filter((t) => t.name === 'postgres') : targets;

describe.each(stageTargets)('stage crash safety on $name', (target) => {
  it(
    `the internal-tx and rich-list stages, started ${HEAD / 2} blocks behind, catch up through ${KILLS} SIGKILLs exactly`,
    { timeout: 600_000 },
    async () => {
      const sim = createSimulator({
        vm: 'evm',
        head: HEAD,
        txsPerBlock: '0-6',
        fastSignatures: true,
        rpcPort: 0,
        restPort: 0,
        jsonRpcPort: 0,
      });
      const urls = await sim.listen();
      const store = await target.open();
      const env = {
        ...store.env,
        RPC_URL: urls.rpc,
        REST_URL: urls.rest,
        JSON_RPC_URL: urls.jsonRpc!,
        VM_TYPE: 'evm',
        // The stages run on the main thread whatever prepares the blocks; kills with the default
        // prepare thread in flight are crash.test.ts's. No thread spares each child its start.
        PREPARE_WORKERS: '0',
      };
      const random = seeded(7);
      try {
        // The block stream alone first, so the stage starts far behind it and runs while it moves;
        // in this process (nothing is killed here: a child would only add its start-up).
        const setup = await store.db();
        try {
          await migrate(setup);
          await ingestFrom({
            db: setup,
            vm: 'evm',
            urls,
            untilHeight: HEAD / 2,
            stages: { internalTx: false, richList: false },
          });
        } finally {
          if (target.name === 'pglite') await setup.close();
        }
        for (let i = 0; i < KILLS; i++) {
          const afterReadyMs = Math.floor(random() * 1500);
          expect(await runIndexer(env, { kill: { afterReadyMs, signal: 'SIGKILL' } })).toBe('killed');
        }
        expect(await runIndexer({ ...env, UNTIL_HEIGHT: String(HEAD) })).toBe('done');
        const db = await store.db();
        try {
          await expectIngestMatchesTruth(db, sim, HEAD);
          await expectInternalTxsMatchTruth(db, sim, HEAD);
          await expectRichListMatchesTruth(db, sim, HEAD);
        } finally {
          if (target.name === 'pglite') await db.close();
        }
      } finally {
        await store.dispose();
        await sim.close();
      }
    },
  );
});
