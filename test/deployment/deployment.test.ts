import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VmType } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories, createPostgresTestDb } from '../helpers/db.js';
import { startTestDeployment, type DeploymentChainSpec, type TestDeployment } from '../helpers/deployment.js';
import { ingestFrom } from '../helpers/ingest.js';
import { routeAnswers, routeAnswersVia, type RouteAnswers } from '../api/route-answers.js';

/**
 * Three simulated rollups (Move, Wasm, EVM; their own chain ids and seeds) in one deployment
 * (docs/chains.md): every chain's routes under `/chains/{chain_id}` answer byte for byte what a
 * single-chain API over its own database answers; `/chains` lists them; ids and root routes that
 * name no chain are refused. On PostgreSQL the EVM chain lives on a database of its own (a shard).
 * Each store runs the whole deployment; the byte-for-byte check takes each VM once and each store
 * once (heavySuiteVms, docs/testing.md): the routes are the same code under any chain's prefix, and
 * a chain's answers depend on its VM, not on the store.
 */
const SPECS: readonly (DeploymentChainSpec & { vm: VmType })[] = [
  {
    vm: 'move',
    chainId: 'deploy-move-1',
    head: 20,
    txsPerBlock: '1-4',
    sim: { seed: 11, accounts: 8, nftShare: 0.5, fastSignatures: true },
  },
  {
    vm: 'wasm',
    chainId: 'deploy-wasm-1',
    head: 16,
    txsPerBlock: '1-4',
    sim: { seed: 12, accounts: 8, nftShare: 0.5, fastSignatures: true },
  },
  {
    vm: 'evm',
    chainId: 'deploy-evm-1',
    head: 12,
    txsPerBlock: '1-4',
    sim: { seed: 13, accounts: 8, nftShare: 0.5, fastSignatures: true },
  },
];

describe.each(testDbFactories())('a deployment of three rollups ($name)', (store) => {
  let deployment: TestDeployment;
  const disposers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    const base =
      store.name === 'postgres'
        ? await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false })
        : undefined;
    const shard =
      store.name === 'postgres'
        ? await createPostgresTestDb(process.env.TEST_DATABASE_URL!, { migrate: false })
        : undefined;
    for (const d of [base, shard]) if (d) disposers.push(() => d.dispose());
    const specs = SPECS.map((s) => (s.vm === 'evm' && shard ? { ...s, databaseUrl: shard.url } : s));
    deployment = await startTestDeployment({ chains: specs, ...(base ? { databaseUrl: base.url } : {}) });
    await deployment.untilIndexed();
  }, 300_000);
  afterAll(async () => {
    await deployment?.stop();
    for (const dispose of disposers) await dispose();
  });

  it('lists every chain with its VM, heights and state', async () => {
    const res = await fetch(`${deployment.url}/chains`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { chains: Array<Record<string, unknown>> };
    expect(body.chains.map((c) => [c.chain_id, c.vm, c.indexed_height, c.node_height])).toEqual(
      SPECS.map((s) => [s.chainId, s.vm, s.head, s.head]),
    );
    for (const chain of body.chains) expect(chain.state).toBe('ok');
  });

  it.each(SPECS.filter((s) => heavySuiteVms(store.name).includes(s.vm)).map((s) => [s.chainId, s] as const))(
    'serves %s under /chains/{id} byte for byte as a single-chain API',
    async (chainId, spec) => {
      const { sim, urls } = deployment.sims.get(chainId)!;
      const single = await store.create();
      try {
        await ingestFrom({ db: single.db, vm: spec.vm, urls, untilHeight: spec.head });
        const want: RouteAnswers = await routeAnswers(single.db, sim, spec.head, [
          '/status',
          '/swagger/doc.json',
        ]);
        const got = await routeAnswersVia(
          async (url) => {
            const res = await fetch(`${deployment.url}/chains/${chainId}${url}`);
            return {
              status: res.status,
              contentType: String(res.headers.get('content-type')),
              body: await res.text(),
            };
          },
          sim,
          spec.head,
          ['/status', '/swagger/doc.json'],
        );
        expect([...got.keys()]).toEqual([...want.keys()]);
        const differing = [...want.keys()].filter((url) => got.get(url) !== want.get(url));
        for (const url of differing.slice(0, 2))
          expect({ url, answer: got.get(url) }).toEqual({ url, answer: want.get(url) });
        expect(differing).toEqual([]);
      } finally {
        await single.dispose();
      }
    },
    300_000,
  );

  it('refuses an unknown chain id and a root route that names no chain, naming what to use', async () => {
    const unknown = await fetch(`${deployment.url}/chains/no-such-chain/status`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain('"no-such-chain"');
    const root = await fetch(`${deployment.url}/indexer/tx/v1/txs`);
    expect(root.status).toBe(404);
    expect(((await root.json()) as { message: string }).message).toContain(
      '/chains/{chain_id}/indexer/tx/v1/txs',
    );
  });

  it('labels each chain metric with its chain id in one scrape', async () => {
    const text = await (await fetch(`${deployment.url}/metrics`)).text();
    for (const spec of SPECS)
      expect(text).toContain(`rollup_indexer_height{chain_id="${spec.chainId}"} ${spec.head}`);
    expect(text.match(/^# TYPE rollup_indexer_height /gm)).toHaveLength(1);
  });
});
