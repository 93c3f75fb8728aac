import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { expectInternalTxsMatchTruth, internalTxTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth, storedDenom } from '../helpers/truth-rich-list.js';

const HEAD = 1000;

/** Where each run stops to compare (and the next resumes from the checkpoints): on EVM ≥ 20 stops. */
const STOPS = {
  // Uneven steps of about 40 heights, so stops fall at every offset inside the stages' batches.
  evm: Array.from({ length: 24 }, (_, i) => 40 * (i + 1) - ((i * 7) % 11)),
  move: [97, 250, 503, 781],
  wasm: [97, 250, 503, 781],
};

/**
 * A long run per VM: the stages' rows equal the simulator's truth at every stop on the way and at
 * the end. On EVM the workload holds reverted txs, nested calls, ERC20 self-transfers, mints and
 * burns, and each is checked to be there.
 *
 * The stages run the same SQL on either store: with PostgreSQL in the run, PGlite takes EVM only,
 * the VM with both stages (internal txs and balances) and the most stops (heavySuiteVms).
 */
describe.each(testDbFactories())('stages over a long run on $name', (factory) => {
  for (const vm of heavySuiteVms(factory.name, 'evm')) {
    it(
      `${vm}: internal txs and balances equal the truth at every stop of ${HEAD} blocks`,
      { timeout: 300_000 },
      async () => {
        const { db, dispose } = await factory.create();
        const checked: number[] = [];
        const expectTruth = async (height: number, sim: Simulator) => {
          if (vm === 'evm') await expectInternalTxsMatchTruth(db, sim, height);
          expect(await expectRichListMatchesTruth(db, sim, height)).toBeGreaterThan(vm === 'evm' ? 20 : 100);
          checked.push(height);
        };
        const indexed = await indexSimulator({
          db,
          vm,
          head: HEAD,
          // Few txs a block: the stops' offsets in the stages' batches are in heights; the
          // workload kinds are counted below.
          txsPerBlock: '0-2',
          sim: { fastSignatures: true },
          stops: { heights: STOPS[vm], at: expectTruth },
        });
        try {
          await expectTruth(HEAD, indexed.sim);
          expect(checked).toEqual([...STOPS[vm], HEAD]);
          if (vm === 'evm') await expectEvmWorkloadKinds(db, indexed.sim);
        } finally {
          await indexed.close();
          await dispose();
        }
      },
    );
  }
});

/** The EVM run held every kind of tx the truth comparison is meant to cover. */
async function expectEvmWorkloadKinds(db: Db, sim: Simulator) {
  const usdc = await storedDenom(db, 'uusdc');
  const frames = internalTxTruth(sim, HEAD);
  const tops = frames.filter((f) => f.index === 0);
  const withChildren = new Set(frames.filter((f) => f.index > 0).map((f) => f.hash));
  const count = (selector: string, keep: (input: string, from: string) => boolean = () => true) =>
    tops.filter((f) => f.to === usdc && f.input.startsWith(selector) && keep(f.input, f.from)).length;
  const kinds = {
    mints: count('0x40c10f19'),
    burns: count('0x42966c68'),
    selfTransfers: count('0xa9059cbb', (input, from) => input.slice(10 + 24, 10 + 64) === from.slice(2)),
    transfers: count('0xa9059cbb'),
    nested: tops.filter((f) => withChildren.has(f.hash)).length,
  };
  for (const [kind, n] of Object.entries(kinds)) expect(n, kind).toBeGreaterThan(3);
  const reverted = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM evm_internal_tx WHERE error = 'execution reverted'",
  );
  expect(reverted.rows[0]!.n).toBeGreaterThan(3);
}
