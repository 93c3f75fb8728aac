/**
 * Ingest of an EVM chain with internal calls and ERC20 traffic into PostgreSQL, with the stages
 * (internal txs, rich list) on against the block stage alone, on the same simulated chain
 * (issue 11 figure). A run ends when every running stage has committed the last height.
 *   npx tsx bench/ingest/derivations.ts [--blocks N] [--txs SPEC]
 * Prints one JSON object per run. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import { createIngestService } from '../../src/ingest/service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { peakRssMb, startBenchChain, type SimProcess } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '10' },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);

async function run(sim: SimProcess, stages: boolean) {
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  try {
    const service = await createIngestService({
      options: {
        chainId: undefined,
        vmType: 'evm',
        endpoints: { rpc: [sim.rpc], rest: [sim.rest], jsonRpc: [sim.jsonRpc!] },
        maxConcurrentRequests: 16,
        accountPrefix: 'init',
        startHeight: undefined,
        internalTx: stages,
        richList: stages,
      },
      logger: silentLogger(),
      db,
      registry: createMetricsRegistry({ defaultMetrics: false }),
    });
    let txs = 0;
    const started = performance.now();
    await service.run({
      signal: new AbortController().signal,
      untilHeight: blocks,
      onCommit: (p) => (txs = p.txs),
    });
    const seconds = (performance.now() - started) / 1000;
    await service.close();
    const { rows } = await db.query<{ stream: string; height: number; rows: number }>(
      `SELECT c.stream, c.height,
              CASE c.stream WHEN 'internal_tx' THEN (SELECT count(*) FROM evm_internal_tx) ELSE 0 END AS rows
         FROM checkpoint c WHERE c.stream <> 'blocks' ORDER BY c.stream`,
    );
    const internalRows = Number(rows.find((r) => r.stream === 'internal_tx')?.rows ?? 0);
    return {
      bench: 'stages-ingest',
      vm: 'evm',
      stages: rows.map((r) => `${r.stream}@${r.height}`),
      db: 'postgres',
      blocks,
      txs,
      internalRows,
      seconds: Math.round(seconds * 100) / 100,
      blocksPerSec: Math.round(blocks / seconds),
      txsPerSec: Math.round(txs / seconds),
      internalRowsPerSec: Math.round(internalRows / seconds),
      peakRssMb: peakRssMb(),
    };
  } finally {
    await dispose();
  }
}

for (const stages of [false, true]) {
  // A fresh simulator per run, so both runs read an equally cold chain.
  const sim = await startBenchChain('evm', blocks, values.txs);
  try {
    console.log(JSON.stringify(await run(sim, stages)));
  } finally {
    await sim.stop();
  }
}
