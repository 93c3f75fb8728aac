import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VmType } from '../../src/sim/types.js';
import { testDbFactories } from '../helpers/db.js';
import { followSimulator, type FollowedSimulator } from '../helpers/ingest.js';
import { internalTxTruth } from '../helpers/truth-internal-txs.js';
import { createHarness, walk, type Harness } from './harness.js';

/**
 * Above one stage batch (50 heights), and on EVM a block whose EVM tx makes nested calls (the
 * simulator's chain for this chain id: block 60 holds one with three frames).
 */
const HEAD = 60;
const vms: VmType[] = ['move', 'wasm', 'evm'];
/** Generous: a loaded 2-core machine indexes these 60 blocks in a few seconds. */
const CATCH_UP_MS = 60_000;
/** Room for the catch-up wait and the requests after it. */
const TEST_TIMEOUT = { timeout: CATCH_UP_MS + 30_000 };

/**
 * A chain that stops producing blocks (an upgrade halt, a stalled sequencer): the indexer follows
 * it with no last height, and every stage still reaches the head it stopped at, so `/status` says
 * what is indexed and the internal txs of the last block are served.
 */
describe.each(
  // One database (PostgreSQL where configured): what is tested is when the runner commits, which
  // the runner's unit tests check on both; this checks the wiring end to end on each VM.
  testDbFactories()
    .slice(-1)
    .flatMap((factory) => vms.map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` }))),
)('stages on a chain held at a fixed head ($name)', ({ factory, vm }) => {
  let h: Harness;
  let followed: FollowedSimulator;
  beforeAll(async () => {
    const chainId = `halted-${vm}-1`;
    h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    followed = await followSimulator({ db: h.db, vm, head: HEAD, txsPerBlock: '0-6', sim: { chainId } });
  }, 60_000);
  afterAll(async () => {
    await followed?.close();
    await h?.dispose();
  });

  // Which stages run is the configuration's (defaults: rich list everywhere, internal txs on EVM).
  const caughtUp = {
    height: HEAD,
    rich_list_height: HEAD,
    ...(vm === 'evm' ? { internal_tx_height: HEAD } : {}),
  };
  /** Polls `/status` until every height in it is the head; fails if ingest stops or time runs out. */
  const untilCaughtUp = async (): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + CATCH_UP_MS;
    let status: Record<string, unknown> = {};
    for (;;) {
      const outcome = followed.outcome();
      if (outcome) throw new Error(`ingest stopped on its own: ${String(outcome.error)}`);
      const res = await h.get('/status');
      if (res.status === 200) status = res.json as Record<string, unknown>;
      if (Object.entries(caughtUp).every(([key, value]) => status[key] === value)) return status;
      if (Date.now() > deadline)
        throw new Error(`/status after ${CATCH_UP_MS} ms: ${JSON.stringify(status)}`);
      await sleep(50);
    }
  };

  it(
    'reports every stage at the head once caught up, while ingest keeps waiting for blocks',
    TEST_TIMEOUT,
    async () => {
      const status = await untilCaughtUp();
      expect(status).toMatchObject(caughtUp);
      expect('internal_tx_height' in status).toBe(vm === 'evm');
      // Still following: nothing above the head exists, and nothing was finished early.
      expect(followed.outcome()).toBeUndefined();
      expect(followed.sim.head()).toBe(HEAD);
    },
  );

  it.runIf(vm === 'evm')('serves the internal txs of a tx in the last block', TEST_TIMEOUT, async () => {
    const last = followed.sim.truth.block(HEAD).txs.find((tx) => tx.evmHash !== undefined);
    expect(last, `block ${HEAD} of the simulator holds an EVM tx`).toBeDefined();
    const hash = last!.evmHash!;
    const frames = internalTxTruth(followed.sim, HEAD).filter((f) => f.hash === hash);
    expect(frames.length).toBeGreaterThan(1);
    await untilCaughtUp();
    const res = await h.get(`/indexer/tx/v1/evm-internal-txs/${hash}`);
    expect(res.status, res.body).toBe(200);
    const { items } = await walk(h, `/indexer/tx/v1/evm-internal-txs/${hash}`, 'internal_txs', {
      'pagination.limit': '2',
      'pagination.reverse': 'false',
    });
    expect(items).toEqual(frames);
  });
});
