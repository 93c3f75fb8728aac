/**
 * `verify` and `reindex` speed (docs/ingest.md §11) against a fresh ingest of the same heights, on
 * one simulated chain in its own process, into PostgreSQL.
 *   npx tsx bench/ingest/repair.ts [--vm move|wasm|evm] [--blocks N] [--txs SPEC] [--batch N]
 * The fresh ingest runs the block pipeline alone (no NFT collection, no stages): what `reindex`
 * writes. Prints one JSON object. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import { openNodeRows } from '../../src/ingest/repair/node-rows.js';
import { runReindex } from '../../src/ingest/repair/reindex.js';
import { runVerify, verifyHeights } from '../../src/ingest/repair/verify.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { benchIngestService, startBenchChain } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'move' },
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '10' },
    batch: { type: 'string', default: '50' },
  },
});
const vm = values.vm as 'move' | 'wasm' | 'evm';
const blocks = Number(values.blocks);
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const round = (n: number) => Math.round(n * 100) / 100;

const sim = await startBenchChain(vm, blocks, values.txs);
const { db, dispose } = await createPostgresTestDb(baseUrl);
try {
  const service = await benchIngestService(sim, db, vm, { stages: { nftIndexing: false, richList: false } });
  let txs = 0;
  const ingestStarted = performance.now();
  await service.run({
    signal: new AbortController().signal,
    untilHeight: blocks,
    onCommit: (p) => (txs = p.txs),
  });
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  await service.close();

  const node = () =>
    openNodeRows(
      db,
      {
        endpoints: { rpc: [sim.rpc], rest: [sim.rest], jsonRpc: sim.jsonRpc ? [sim.jsonRpc] : [] },
        accountPrefix: 'init',
        maxConcurrentRequests: 16,
        requestTimeoutMs: 30_000,
      },
      createMetricsRegistry({ defaultMetrics: false }),
    );
  const verifyNode = await node();
  const verified = await runVerify(db, verifyNode, {
    heights: await verifyHeights(db, {}),
    accountPrefix: 'init',
  }).finally(() => verifyNode.close());
  const reindexNode = await node();
  const reindexed = await runReindex(db, reindexNode, {
    from: 1,
    to: blocks,
    batch: Number(values.batch),
  }).finally(() => reindexNode.close());
  console.log(
    JSON.stringify({
      bench: 'repair',
      vm,
      db: 'postgres',
      blocks,
      txs,
      ingest: { seconds: round(ingestSeconds), blocksPerSec: round(blocks / ingestSeconds) },
      verify: {
        seconds: round(verified.seconds),
        heightsPerSec: round(verified.heights / verified.seconds),
        nodeRequestsPerHeight: round(verified.nodeRequests / verified.heights),
        drifts: verified.drifts.length,
      },
      reindex: {
        seconds: round(reindexed.seconds),
        heightsPerSec: round(reindexed.heights / reindexed.seconds),
        nodeRequestsPerHeight: round(reindexed.nodeRequests / reindexed.heights),
        batch: Number(values.batch),
      },
    }),
  );
} finally {
  await dispose();
  await sim.stop();
}
