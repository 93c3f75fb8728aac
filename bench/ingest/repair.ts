/**
 * `verify` and `reindex` speed (docs/ingest.md §11) against a fresh ingest of the same heights, on
 * one simulated chain in its own process, into PostgreSQL.
 *   npx tsx bench/ingest/repair.ts [--vm move|wasm|evm] [--blocks N] [--txs SPEC] [--batch N]
 * The first fresh ingest runs the block pipeline alone (no NFT collection, no stages): what
 * `reindex --from --to` writes. A second database is indexed with NFTs and every stage on, for
 * what reads or rewrites those: `verify --state all` (NFT owners and rich-list balances against the
 * node's state) and `reindex --stage` of each stage (rebuilt from the first height and swapped in).
 * Prints one JSON object. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import { openNodeRows } from '../../src/ingest/repair/node-rows.js';
import { runReindex } from '../../src/ingest/repair/reindex.js';
import { runStageReindex } from '../../src/ingest/repair/stage-reindex.js';
import { runVerify, verifyHeights } from '../../src/ingest/repair/verify.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
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
const openNode = (db: Db) =>
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

/** A fresh index with NFTs and every stage, then the state checks and each stage's reindex on it. */
async function stagesAndState() {
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  try {
    const service = await benchIngestService(sim, db, vm, { stages: { nftIndexing: true, richList: true } });
    const started = performance.now();
    await service.run({ signal: new AbortController().signal, untilHeight: blocks });
    const ingestSeconds = (performance.now() - started) / 1000;
    await service.close();
    const node = await openNode(db);
    const state = await runVerify(db, node, {
      heights: [],
      accountPrefix: 'init',
      state: { sample: 'all', seed: 1 },
    }).finally(() => node.close());
    const checks = (state.state?.nfts.checked ?? 0) + (state.state?.richList?.checked ?? 0);
    const stages: Record<string, unknown> = {};
    for (const stage of vm === 'evm' ? (['internal_tx', 'rich_list'] as const) : (['rich_list'] as const)) {
      const stageNode = await openNode(db);
      const r = await runStageReindex(db, stageNode, {
        stage,
        accountPrefix: 'init',
        batch: Number(values.batch),
      }).finally(() => stageNode.close());
      stages[stage] = {
        seconds: round(r.seconds),
        heightsPerSec: round(r.heights / r.seconds),
        nodeRequestsPerHeight: round(r.nodeRequests / r.heights),
        rowsSwapped: r.rows,
      };
    }
    return {
      ingestWithStages: { seconds: round(ingestSeconds), blocksPerSec: round(blocks / ingestSeconds) },
      verifyState: {
        nftOwners: state.state?.nfts.checked ?? 0,
        balances: state.state?.richList?.checked ?? 0,
        seconds: round(state.seconds),
        checksPerSec: round(checks / state.seconds),
        nodeRequestsPerCheck: round(state.nodeRequests / Math.max(1, checks)),
        drifts: state.drifts.length,
      },
      reindexStage: stages,
    };
  } finally {
    await dispose();
  }
}

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

  const node = () => openNode(db);
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
  const withStages = await stagesAndState();
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
      ...withStages,
    }),
  );
} finally {
  await dispose();
  await sim.stop();
}
