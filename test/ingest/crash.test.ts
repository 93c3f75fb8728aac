import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import { crashTargets, runIndexer, seeded } from '../helpers/crash.js';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';

const HEAD = 800;
const KILLS = 20;

describe.each(crashTargets())('crash safety on $name', (target) => {
  it(
    `survives ${KILLS} SIGKILLs while backfilling with no gap and no duplicate`,
    { timeout: 600_000 },
    async () => {
      const sim = createSimulator({
        vm: 'move',
        head: HEAD,
        txsPerBlock: '0-8',
        fastSignatures: true,
        rpcPort: 0,
        restPort: 0,
      });
      const urls = await sim.listen();
      const store = await target.open();
      const env = { ...store.env, RPC_URL: urls.rpc, REST_URL: urls.rest, VM_TYPE: 'move' };
      const random = seeded(42);
      try {
        const outcomes: string[] = [];
        for (let i = 0; i < KILLS; i++) {
          // From right at the start of ingest (resume, first fetches) to deep into a batch.
          const afterReadyMs = Math.floor(random() * 2000);
          outcomes.push(await runIndexer(env, { kill: { afterReadyMs, signal: 'SIGKILL' } }));
        }
        expect(outcomes.filter((o) => o === 'killed').length).toBe(KILLS);
        // A polite stop finishes the commit in flight and exits cleanly.
        expect(await runIndexer(env, { kill: { afterReadyMs: 300, signal: 'SIGTERM' } })).toBe('done');
        expect(await runIndexer({ ...env, UNTIL_HEIGHT: String(HEAD) })).toBe('done');
        const db = await store.db();
        try {
          await expectIngestMatchesTruth(db, sim, HEAD);
          await expectNftMatchesTruth(db, sim, HEAD);
          expect(await expectNftTxEdgesMatchEvents(db, 'move')).toBeGreaterThan(0);
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
