/**
 * The work ingest asks of the node (issue 21): HTTP requests and queries per 1,000 blocks by
 * surface and purpose, and the simulator's CPU time (read from /proc of its own process), with the
 * stages off (core: no NFTs, no rich list, no internal txs) and on (the default), per VM; the modes
 * `nft` and `rich_list` turn on that stage alone (internal txs stay off), to weigh each on its own.
 *   npx tsx bench/ingest/node-work.ts [--blocks N] [--txs SPEC] [--vms move,wasm,evm] [--modes core,default,nft,rich_list]
 * Prints one JSON object per run; every run has a fresh simulator and a fresh database.
 * Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import type { Counter } from 'prom-client';
import { createMetricsRegistry, type Registry } from '../../src/shared/metrics.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { benchIngestService, peakRssMb, processCpuSeconds, startBenchChain } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '3' },
    vms: { type: 'string', default: 'move,wasm,evm' },
    modes: { type: 'string', default: 'core,default' },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);
type Vm = 'move' | 'wasm' | 'evm';
type Mode = 'core' | 'default' | 'nft' | 'rich_list';

/** A counter's values per 1,000 blocks, keyed `surface/purpose`, largest first. */
async function perThousand(registry: Registry, name: string): Promise<Record<string, number>> {
  const counter = registry.getSingleMetric(name) as Counter<'surface' | 'purpose'> | undefined;
  const values = counter ? (await counter.get()).values : [];
  return Object.fromEntries(
    values
      .map((v) => [`${v.labels.surface}/${v.labels.purpose}`, round((v.value * 1000) / blocks)] as const)
      .sort((a, b) => b[1] - a[1]),
  );
}

async function run(vm: Vm, mode: Mode) {
  // A fresh simulator per run, so every run reads an equally cold chain.
  const sim = await startBenchChain(vm, blocks, values.txs);
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  try {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const all = mode === 'default';
    const service = await benchIngestService(sim, db, vm, {
      stages: {
        internalTx: vm === 'evm' ? all : undefined,
        richList: all || mode === 'rich_list',
        nftIndexing: all || mode === 'nft',
      },
      registry,
    });
    const simCpu0 = processCpuSeconds(sim.pid!);
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    await service.run({ signal: new AbortController().signal, untilHeight: blocks });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const simCpu = processCpuSeconds(sim.pid!) - simCpu0;
    await service.close();
    const { rows } = await db.query<{ stream: string; height: number }>(
      'SELECT stream, height FROM checkpoint ORDER BY stream',
    );
    return {
      bench: 'node-work',
      vm,
      mode,
      checkpoints: rows.map((r) => `${r.stream}@${r.height}`),
      blocks,
      seconds: round(seconds),
      blocksPerSec: Math.round(blocks / seconds),
      ingestCpuS: round((cpu.user + cpu.system) / 1e6),
      simCpuS: round(simCpu),
      simCpuMsPerBlock: round((simCpu * 1000) / blocks),
      requestsPer1000Blocks: await perThousand(registry, 'rollup_indexer_node_requests_total'),
      callsPer1000Blocks: await perThousand(registry, 'rollup_indexer_node_calls_total'),
      peakRssMb: peakRssMb(),
    };
  } finally {
    await dispose();
    await sim.stop();
  }
}

function round(n: number) {
  return Math.round(n * 100) / 100;
}

for (const vm of values.vms.split(',') as Vm[]) {
  for (const mode of values.modes.split(',') as Mode[]) console.log(JSON.stringify(await run(vm, mode)));
}
