/**
 * Node requests per 1,000 blocks of a fresh index from genesis with one archive node against a
 * pool of a pruned node (keeping the last --keep blocks) and an archive (docs/node-data.md §5):
 * requests by surface and purpose, requests routed to each endpoint, and what each simulated node
 * answered in all (probes included) and how often it refused a height below its lowest, by surface
 * (the simulator refuses on RPC, REST state routes and JSON-RPC as real nodes do, docs/node-data.md §5.3).
 *   npx tsx bench/ingest/pool-requests.ts [--blocks 1000] [--keep 200] [--vm move] [--txs 3]
 * Prints one JSON object per pool; every run has fresh simulators (in this process) and a fresh
 * database. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import type { Counter } from 'prom-client';
import { createIngestService } from '../../src/ingest/service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry, type Registry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { SimulatorOptions, VmType } from '../../src/sim/types.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '1000' },
    keep: { type: 'string', default: '200' },
    vm: { type: 'string', default: 'move' },
    txs: { type: 'string', default: '3' },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);
const vm = values.vm as VmType;
const perThousand = (n: number) => Math.round((n * 100_000) / blocks) / 100;

async function counterTotal(registry: Registry, name: string): Promise<Record<string, number>> {
  const counter = registry.getSingleMetric(name) as Counter<'surface' | 'purpose'> | undefined;
  const out: Record<string, number> = {};
  for (const v of counter ? (await counter.get()).values : [])
    out[`${v.labels.surface}/${v.labels.purpose}`] = perThousand(v.value);
  return out;
}

async function run(pool: string, nodes: Record<string, Partial<SimulatorOptions>>) {
  const sims = Object.entries(nodes).map(([name, options]) => ({
    name,
    sim: createSimulator({
      vm,
      head: blocks,
      txsPerBlock: values.txs,
      fastSignatures: true,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
      ...options,
    }),
  }));
  const urls = await Promise.all(sims.map((s) => s.sim.listen()));
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  const registry = createMetricsRegistry({ defaultMetrics: false });
  try {
    const service = await createIngestService({
      options: {
        chainId: undefined,
        vmType: vm,
        endpoints: {
          rpc: urls.map((u) => u.rpc),
          rest: urls.map((u) => u.rest),
          jsonRpc: urls.flatMap((u) => u.jsonRpc ?? []),
        },
        maxConcurrentRequests: 8,
        accountPrefix: 'init',
        startHeight: undefined,
      },
      logger: silentLogger(),
      db,
      registry,
    });
    const started = performance.now();
    await service.run({ signal: new AbortController().signal, untilHeight: blocks });
    const seconds = (performance.now() - started) / 1000;
    const endpoints = service.endpoints();
    await service.close();
    const requests = await counterTotal(registry, 'rollup_indexer_node_requests_total');
    return {
      bench: 'pool-requests',
      pool,
      vm,
      blocks,
      seconds: Math.round(seconds * 10) / 10,
      requestsPer1000Blocks: Object.values(requests).reduce((a, b) => a + b, 0),
      byPurposePer1000Blocks: requests,
      routedPer1000Blocks: Object.fromEntries(
        endpoints.map((ep) => [
          `${ep.surface} ${sims[urls.findIndex((u) => [u.rpc, u.rest, u.jsonRpc].includes(ep.url))]!.name}`,
          perThousand(ep.requests),
        ]),
      ),
      nodes: Object.fromEntries(
        sims.map(({ name, sim }) => {
          const log = sim.faultLog();
          return [
            name,
            {
              servedPer1000Blocks: perThousand(log.served.rpc + log.served.rest + log.served.jsonrpc),
              // Answers on RPC and REST, calls on JSON-RPC (a batch refused whole counts each call).
              refusedBelowLowest: log.refused,
            },
          ];
        }),
      ),
    };
  } finally {
    await dispose();
    await Promise.all(sims.map((s) => s.sim.close()));
  }
}

console.log(JSON.stringify(await run('archive', { archive: {} })));
console.log(
  JSON.stringify(await run('pruned+archive', { pruned: { keepBlocks: Number(values.keep) }, archive: {} })),
);
