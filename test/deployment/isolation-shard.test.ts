import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorOptions } from '../../src/sim/types.js';
import { startStoreIndependentDeployment, type TestDeployment } from '../helpers/deployment.js';
import {
  chainViews,
  expectEveryChainMatchesTruth,
  expectOthersAdvance,
  untilRecovered,
  untilStalled,
} from '../helpers/deployment-faults.js';
import { createPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { needs, pgServerRequirement } from '../helpers/requirements.js';

/**
 * Isolation of a chain's database in a deployment (docs/chains.md §5): the EVM chain lives on a
 * PostgreSQL server of its own (a shard, a private cluster this test stops and starts), the Move
 * and Wasm chains on the deployment's database (startStoreIndependentDeployment: the run's
 * PostgreSQL server when it is in the run, else the embedded one). While the shard is down the others keep committing and
 * stay `ok`, the EVM chain is `stalled` naming the database; once the server is back it recovers
 * by itself and every chain's rows equal its simulator's truth.
 */
const pgServer = await pgServerRequirement();
const SHARDED = 'shard-evm-1';

const live = (seed: number): Partial<SimulatorOptions> => ({
  seed,
  accounts: 8,
  live: true,
  blockTimeMs: 600,
  fastSignatures: true,
});

describe.runIf(needs(pgServer))('a deployment whose EVM chain loses its own PostgreSQL server', () => {
  let cluster: PgCluster;
  let deployment: TestDeployment;

  beforeAll(async () => {
    cluster = await createPgCluster();
    await cluster.sql('CREATE DATABASE shard');
    deployment = await startStoreIndependentDeployment({
      chains: [
        { vm: 'move', chainId: 'shard-move-1', head: 3, txsPerBlock: '2-4', sim: live(31) },
        { vm: 'wasm', chainId: 'shard-wasm-1', head: 3, txsPerBlock: '2-4', sim: live(32) },
        {
          vm: 'evm',
          chainId: SHARDED,
          head: 3,
          txsPerBlock: '2-4',
          sim: live(33),
          databaseUrl: cluster.url('shard'),
        },
      ],
    });
    await deployment.untilIndexed(() => 5);
  }, 180_000);
  afterAll(async () => {
    await deployment?.stop();
    await cluster?.dispose();
  });

  it('keeps the other chains committing while the shard is stopped, and recovers when it starts again', async () => {
    await cluster.stop();
    await expectOthersAdvance(deployment, SHARDED, 4);
    // Its own routes cannot read its index meanwhile: they say so (503 JSON), never 500.
    const res = await fetch(`${deployment.url}/chains/${SHARDED}/indexer/block/v1/blocks/1`);
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({
      status: 503,
      type: expect.stringMatching(/^application\/json/),
    });
    await cluster.start();
    await untilRecovered(deployment, SHARDED, deployment.sims.get(SHARDED)!.sim);
  }, 180_000);

  // Known gap (docs/chains.md §5): the block stream's commit waits for its database without telling
  // the chain's condition, so /chains shows the chain `catching_up` with no last_error meanwhile.
  it('shows the chain stalled with its database error while its shard is down', async () => {
    await cluster.stop();
    try {
      await untilStalled(deployment, SHARDED, /connect|terminat|shut|database|ECONNREFUSED/i, 30_000);
    } finally {
      await cluster.start();
      await untilRecovered(deployment, SHARDED, deployment.sims.get(SHARDED)!.sim);
    }
  }, 180_000);

  it('has stored every chain exactly as its simulator made it: nothing skipped or repeated', async () => {
    const reached = new Map(
      [...(await chainViews(deployment.url))].map(([id, c]) => [id, c.indexed_height] as const),
    );
    await deployment.halt();
    await expectEveryChainMatchesTruth(deployment, reached);
  }, 180_000);
});
