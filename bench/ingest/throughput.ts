/**
 * Ingest throughput, fetch-only ceiling, live head lag and peak RSS (issue 3 figures).
 *   npx tsx bench/ingest/throughput.ts [--scenario NAME] [--db postgres|pglite|both]
 * Scenarios: small (20,000 blocks x 3 txs), large (2,000 blocks x 100 txs), live (head lag).
 * Prints one JSON object per measurement. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PipelineTuning } from '../../src/ingest/pipeline.js';
import { createCometClient } from '../../src/node/cometbft.js';
import { createTransport } from '../../src/node/transport.js';
import { createPgliteDb } from '../../src/store/driver/pglite.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import type { Db } from '../../src/store/driver/db.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import {
  benchIngestService,
  peakRssMb,
  percentile,
  startBenchChain,
  startSimProcess,
} from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    db: { type: 'string', default: 'both' },
    blocks: { type: 'string' },
    tuning: { type: 'string' },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const SCENARIOS = {
  small: { blocks: 20_000, txs: '3' },
  large: { blocks: 2_000, txs: '100' },
} as const;

async function freshDb(kind: 'postgres' | 'pglite'): Promise<{ db: Db; dispose(): Promise<void> }> {
  if (kind === 'postgres') return createPostgresTestDb(baseUrl);
  // On disk, as operators run it: an in-memory PGlite would count the whole database in our RSS.
  const dir = await mkdtemp(path.join(tmpdir(), 'ri-bench-'));
  const db = await createPgliteDb({ dataDir: dir });
  await migrate(db);
  return {
    db,
    dispose: async () => {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Backfill: a Move chain with a fixed head, fast signatures, ingested from height 1. */
async function ingestRun(kind: 'postgres' | 'pglite', name: string, blocks: number, txs: string) {
  const sim = await startBenchChain('move', blocks, txs);
  const { db, dispose } = await freshDb(kind);
  try {
    const service = await benchIngestService(sim, db);
    let txCount = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await service.run({
      signal: new AbortController().signal,
      untilHeight: blocks,
      ...(values.tuning ? { tuning: JSON.parse(values.tuning) as Partial<PipelineTuning> } : {}),
      onCommit: (p) => (txCount = p.txs),
    });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    await service.close();
    return {
      bench: 'ingest',
      scenario: name,
      db: kind,
      blocks,
      txs: txCount,
      seconds: round(seconds),
      blocksPerSec: Math.round(blocks / seconds),
      txsPerSec: Math.round(txCount / seconds),
      /** Share of one core the ingest process used (the simulator and the database use the rest). */
      ingestCpuShare: round((cpu.user + cpu.system) / 1e6 / seconds),
      peakRssMb: peakRssMb(),
    };
  } finally {
    await dispose();
    await sim.stop();
  }
}

/** The raw limit: the same heights fetched (block + block_results batches), nothing decoded or written. */
async function fetchOnly(name: string, blocks: number, txs: string) {
  const sim = await startBenchChain('move', blocks, txs);
  const transport = createTransport({
    name: 'rpc',
    endpoints: [sim.rpc],
    timeoutMs: 30_000,
    maxConcurrent: 16,
  });
  const comet = createCometClient(transport);
  try {
    const chunk = 20;
    const started = performance.now();
    let next = 1;
    const worker = async () => {
      while (next <= blocks) {
        const from = next;
        next += chunk;
        const heights = Array.from({ length: Math.min(chunk, blocks - from + 1) }, (_, i) => from + i);
        await comet.fetchBlocks(heights);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    const seconds = (performance.now() - started) / 1000;
    return {
      bench: 'fetch-only',
      scenario: name,
      blocks,
      seconds: round(seconds),
      blocksPerSec: Math.round(blocks / seconds),
    };
  } finally {
    await transport.close();
    await sim.stop();
  }
}

/**
 * Head lag with the node producing a block every 200 ms: for each height, the time from its first
 * appearance in the node's /status (polled every 5 ms by a separate observer) to its commit.
 */
async function liveLag(kind: 'postgres' | 'pglite', seconds: number) {
  const blockMs = 200;
  const sim = await startSimProcess([
    '--vm',
    'move',
    '--head',
    '1',
    '--live',
    '--block-time-ms',
    String(blockMs),
    '--txs-per-block',
    '3',
    '--fast-signatures',
  ]);
  const { db, dispose } = await freshDb(kind);
  const firstSeen = new Map<number, number>();
  const observer = observeHead(sim.rpc, firstSeen);
  try {
    const service = await benchIngestService(sim, db);
    const lags: number[] = [];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), seconds * 1000);
    await service.run({
      signal: controller.signal,
      onCommit: (p) => {
        const seen = firstSeen.get(p.height);
        if (seen !== undefined && p.height > 5) lags.push(Date.now() - seen);
      },
    });
    await service.close();
    lags.sort((a, b) => a - b);
    return {
      bench: 'live-head-lag',
      db: kind,
      blockTimeMs: blockMs,
      commits: lags.length,
      p50Ms: percentile(lags, 50),
      p99Ms: percentile(lags, 99),
      maxMs: lags[lags.length - 1],
    };
  } finally {
    observer.stop();
    await dispose();
    await sim.stop();
  }
}

function observeHead(rpc: string, firstSeen: Map<number, number>): { stop(): void } {
  let latest = 0;
  let running = true;
  void (async () => {
    while (running) {
      const res = await fetch(`${rpc}/status`).catch(() => undefined);
      const body = (await res?.json().catch(() => undefined)) as
        { result?: { sync_info?: { latest_block_height?: string } } } | undefined;
      const height = Number(body?.result?.sync_info?.latest_block_height ?? 0);
      const now = Date.now();
      for (let h = latest + 1; h <= height; h++) firstSeen.set(h, now);
      latest = Math.max(latest, height);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return { stop: () => (running = false) };
}

function round(n: number) {
  return Math.round(n * 100) / 100;
}

const dbs: ('postgres' | 'pglite')[] =
  values.db === 'both' ? ['postgres', 'pglite'] : [values.db as 'postgres' | 'pglite'];
const scenario = values.scenario;
for (const [name, s] of Object.entries(SCENARIOS)) {
  if (scenario !== 'all' && scenario !== name) continue;
  const blocks = values.blocks ? Number(values.blocks) : s.blocks;
  console.log(JSON.stringify(await fetchOnly(name, blocks, s.txs)));
  for (const kind of dbs) console.log(JSON.stringify(await ingestRun(kind, name, blocks, s.txs)));
}
if (scenario === 'all' || scenario === 'live') {
  for (const kind of dbs) console.log(JSON.stringify(await liveLag(kind, 20)));
}
