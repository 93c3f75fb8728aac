import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../../src/sim/types.js';
import {
  startStoreIndependentDeployment,
  type DeploymentChainSpec,
  type TestDeployment,
} from '../helpers/deployment.js';
import {
  chainViews,
  expectEveryChainMatchesTruth,
  expectOthersAdvance,
  expectServedFromIndex,
  fixedPorts,
  ReplaceableNode,
  untilRecovered,
  until,
  untilStalled,
} from '../helpers/deployment-faults.js';

/**
 * Isolation of a chain's node trouble in a deployment (docs/chains.md §5): three live simulated
 * rollups; the Wasm chain's node is killed and restarted on its ports, replaced by a node of
 * another chain, then slowed down. Each time the other chains keep committing and stay `ok`, the
 * faulty one is shown `stalled` with its error while its own routes still answer from its index,
 * and it recovers by itself once its node is back. At the end every chain's rows equal its
 * simulator's truth. Node trouble does not depend on the store: PostgreSQL when it is in the run,
 * else PGlite (docs/testing.md); the PostgreSQL shard's outage is isolation-shard.test.ts.
 */
const FAULTY = 'iso-wasm-1';
/** Blocks every other chain must commit while the faulty one is held back. */
const ADVANCE = 4;

const live = (seed: number): Partial<SimulatorOptions> => ({
  seed,
  accounts: 8,
  live: true,
  blockTimeMs: 600,
  fastSignatures: true,
});

describe('a deployment whose Wasm chain loses its node', () => {
  let deployment: TestDeployment;
  let node: ReplaceableNode;

  beforeAll(async () => {
    const wasmPorts = await fixedPorts('wasm');
    const specs: DeploymentChainSpec[] = [
      { vm: 'move', chainId: 'iso-move-1', head: 3, txsPerBlock: '2-4', sim: live(21) },
      { vm: 'wasm', chainId: FAULTY, head: 3, txsPerBlock: '2-4', sim: { ...live(22), ...wasmPorts } },
      { vm: 'evm', chainId: 'iso-evm-1', head: 3, txsPerBlock: '2-4', sim: live(23) },
    ];
    deployment = await startStoreIndependentDeployment({ chains: specs });
    const wasm = specs[1]!;
    node = new ReplaceableNode(deployment.sims.get(FAULTY)!.sim, {
      vm: wasm.vm,
      head: wasm.head,
      txsPerBlock: wasm.txsPerBlock!,
      ...wasm.sim,
      chainId: FAULTY,
    });
    await deployment.untilIndexed(() => 5);
  }, 120_000);
  afterAll(async () => {
    await node?.serving().close();
    await deployment?.stop();
  });

  it('keeps the others committing while its node is down, and recovers when it restarts on its ports', async () => {
    await node.kill();
    const servedUpTo = node.chain.head();
    const stalled = await untilStalled(deployment, FAULTY, /ECONNREFUSED|unreachable|connect/i);
    expect(stalled.last_error!.since).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expectOthersAdvance(deployment, FAULTY, ADVANCE, { servedUpTo });
    expect((await chainViews(deployment.url)).get(FAULTY)!.state).toBe('stalled');
    await expectServedFromIndex(deployment, FAULTY);
    await node.restore();
    await untilRecovered(deployment, FAULTY, node.chain);
  }, 120_000);

  it('refuses a node serving another chain id, naming it, and recovers when the chain’s node returns', async () => {
    // Swapped at once, with no failure between: blocks of the other chain may be fetched before
    // the endpoint's next probe, and must not be stored.
    const impostor = await node.replace({ chainId: 'iso-other-1', seed: 99 });
    const servedUpTo = node.chain.head();
    await untilStalled(
      deployment,
      FAULTY,
      /serves another chain.*iso-other-1|iso-other-1.*expected iso-wasm-1/,
    );
    await expectOthersAdvance(deployment, FAULTY, ADVANCE, { servedUpTo });
    await expectServedFromIndex(deployment, FAULTY);
    // The impostor was asked (its identity at least), and nothing it served was stored: see the last test.
    const { served } = impostor.faultLog();
    expect(served.rpc + served.rest).toBeGreaterThan(0);
    await node.restore();
    await untilRecovered(deployment, FAULTY, node.chain);
  }, 120_000);

  it('keeps the others ok while its node answers slowly, and catches up once it is fast again', async () => {
    const slow = await node.replace({ faults: 'latency=600' });
    await until('the slow node to be asked', async () => slow.faultLog().delayed > 0);
    await expectOthersAdvance(deployment, FAULTY, ADVANCE, { stalled: false });
    expect(slow.faultLog().delayed).toBeGreaterThan(1);
    await node.restore();
    await untilRecovered(deployment, FAULTY, node.chain);
  }, 120_000);

  it('has stored every chain exactly as its simulator made it: nothing skipped or repeated', async () => {
    const reached = new Map(
      [...(await chainViews(deployment.url))].map(([id, c]) => [id, c.indexed_height] as const),
    );
    await deployment.halt();
    await expectEveryChainMatchesTruth(deployment, reached);
  }, 120_000);
});
