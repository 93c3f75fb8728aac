import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';

describe.each(testDbFactories())('resume on $name', (factory) => {
  it('continues from the checkpoint, and refuses a node whose block at the checkpoint differs', async () => {
    const { db, dispose } = await factory.create();
    try {
      const first = await indexSimulator({
        db,
        vm: 'move',
        head: 30,
        untilHeight: 20,
        sim: { fastSignatures: true },
      });
      await first.close();
      const second = await indexSimulator({ db, vm: 'move', head: 30, sim: { fastSignatures: true } });
      await expectIngestMatchesTruth(db, second.sim, 30);
      await second.close();

      // Same chain id and VM, different history (another seed): the stored hash at height 30 no longer matches.
      await expect(
        indexSimulator({ db, vm: 'move', head: 40, sim: { fastSignatures: true, seed: 2 } }),
      ).rejects.toMatchObject({
        code: 'chain_mismatch',
        message: expect.stringMatching(/block 30 is [0-9A-F]{64} on the node/),
      });
    } finally {
      await dispose();
    }
  });
});
