/**
 * Builds (or grows) the scale bench's database through the real ingest service: the simulator's
 * closed-form chain (Move, fast signatures) as a child process, NFT indexing on, the rich list off
 * (see scaleIngestService), large commits. Resumable: the ingest checkpoint says where a new run continues, and the chain is
 * the same whatever `--head` the simulator is started with (ingest checks the checkpoint block's
 * hash on resume, so a different chain would stop it).
 */
import { statfs } from 'node:fs/promises';
import pg from 'pg';
import type { PipelineTuning } from '../../src/ingest/pipeline.js';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { createIngestService } from '../../src/ingest/service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { startSimProcess, type SimProcess } from '../lib/harness.js';
import { followBackends } from '../lib/http-load.js';

/** The scale chain: what `--txs` counts in, and what the ingest samples run on. */
export const SCALE_CHAIN = { vm: 'move', txsPerBlock: 40, accounts: 64 } as const;

/**
 * The ingest service as an operator runs it with RICH_LIST=false: blocks, txs, edges and NFTs.
 * The rich-list stage is left out because on this shared 2-core host it advanced ~20 blocks/min
 * behind a 40-tx block stream (a node balance read for every account it meets first; issue 21's
 * node work is on it), and `untilHeight` waits for every stage. Its tables hold one row per
 * account and denom, not per tx, so they do not change what grows with the tx count.
 */
export function scaleIngestService(sim: SimProcess, db: Db) {
  return createIngestService({
    options: {
      chainId: undefined,
      vmType: SCALE_CHAIN.vm,
      endpoints: { rpc: [sim.rpc], rest: [sim.rest], jsonRpc: [] },
      maxConcurrentRequests: 16,
      accountPrefix: 'init',
      startHeight: undefined,
      richList: false,
    },
    logger: silentLogger(),
    db,
    registry: createMetricsRegistry({ defaultMetrics: false }),
  });
}

/** Commits as large as the pipeline allows without holding much more than a batch in memory. */
export const BUILD_TUNING: Partial<PipelineTuning> = {
  maxBlocksPerCommit: 500,
  maxTxsPerCommit: 20_000,
  maxBufferedTxs: 24_000,
};

/**
 * Below this much free disk the bench stops (the machine is shared; PostgreSQL must not fill it).
 * `SCALE_MIN_FREE_GB` lowers it on a machine that is the bench's alone (a 10M build needs ~53 GB).
 */
export const MIN_FREE_BYTES = Number(process.env.SCALE_MIN_FREE_GB ?? 25) * 1024 ** 3;

export function simArgs(head: number): string[] {
  return [
    ...['--vm', SCALE_CHAIN.vm, '--head', String(head)],
    ...['--txs-per-block', String(SCALE_CHAIN.txsPerBlock), '--accounts', String(SCALE_CHAIN.accounts)],
    '--fast-signatures',
  ];
}

export async function freeDiskBytes(path = '/'): Promise<number> {
  const fs = await statfs(path);
  return fs.bavail * fs.bsize;
}

export async function assertDiskRoom(what: string): Promise<void> {
  const free = await freeDiskBytes();
  if (free < MIN_FREE_BYTES) {
    throw new Error(
      `${what}: only ${(free / 1024 ** 3).toFixed(1)} GB free on /, below the ${MIN_FREE_BYTES / 1024 ** 3} GB floor; stopping`,
    );
  }
}

/**
 * Creates the database if it does not exist and migrates it (through `upTo` when given, so a later
 * migration can be timed on the built size); returns its URL.
 */
export async function ensureDatabase(adminUrl: string, name: string, upTo?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (!exists) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 1 });
  try {
    await migrate(db, upTo ? { upTo } : {});
  } finally {
    await db.close();
  }
  return url.toString();
}

export async function checkpointHeight(db: Db): Promise<{ height: number; txs: number }> {
  const row = await db.query<{ height: string; tx_sequence: string }>(
    "SELECT height, tx_sequence FROM checkpoint WHERE stream = 'blocks'",
  );
  return { height: Number(row.rows[0]?.height ?? 0), txs: Number(row.rows[0]?.tx_sequence ?? 0) };
}

export interface IngestRun {
  fromHeight: number;
  toHeight: number;
  blocks: number;
  txs: number;
  seconds: number;
  blocksPerSec: number;
  txsPerSec: number;
  /** CPU seconds of this (ingest) process per 1,000 blocks: survives other load better than wall time. */
  ingestCpuSecPer1000Blocks: number;
  /** Same for the simulator child. */
  simCpuSecPer1000Blocks: number;
  /** Same for the PostgreSQL backends serving this database (the ingest service's connections). */
  postgresCpuSecPer1000Blocks: number;
  stoppedForDisk?: string;
}

/**
 * Ingests from the checkpoint up to `toHeight` (all stages on), checking free disk every 10 s;
 * `log` tells progress. Returns the rate; an interruption leaves a consistent checkpoint.
 */
export async function ingestTo(
  url: string,
  toHeight: number,
  log: (message: string) => void,
  cpuSecondsOf: (pid: number | undefined) => Promise<number>,
  warmBlocks = 0,
): Promise<IngestRun> {
  const db = createPostgresDb({ url, maxConnections: 4 });
  const sim = await startSimProcess(simArgs(toHeight));
  const backends = await followBackends(url);
  const controller = new AbortController();
  let stoppedForDisk: string | undefined;
  const diskTimer = setInterval(() => {
    assertDiskRoom('build').catch((err: Error) => {
      stoppedForDisk = err.message;
      log(err.message);
      controller.abort();
    });
  }, 10_000);
  // Ctrl-C ends the build at the next commit, so it still vacuums and prints its rate.
  const stopOnInterrupt = () => controller.abort();
  process.once('SIGINT', stopOnInterrupt);
  try {
    const start = await checkpointHeight(db);
    const service = await scaleIngestService(sim, db);
    // The counted part starts at the first commit past the warm-up: a freshly started simulator
    // derives every NFT object address up to the height on its first queries (seconds of CPU at
    // high heights, once), which a long-running node has behind it.
    const mark = () => ({
      at: performance.now(),
      cpu: process.cpuUsage(),
      simCpu: cpuSecondsOf(sim.pid),
      postgres: backends.begin(),
    });
    let base = { ...start, ...mark() };
    let counting = warmBlocks === 0;
    let lastLog = Date.now();
    await service.run({
      signal: controller.signal,
      untilHeight: toHeight,
      tuning: BUILD_TUNING,
      onCommit: (p) => {
        if (!counting && p.height >= start.height + warmBlocks) {
          counting = true;
          base = { height: p.height, txs: start.txs + p.txs, ...mark() };
        }
        if (Date.now() - lastLog < 30_000) return;
        lastLog = Date.now();
        const s = (performance.now() - base.at) / 1000;
        const txs = start.txs + p.txs;
        log(`height ${p.height} / ${toHeight}, ${txs} txs, ${Math.round((txs - base.txs) / s)} txs/s`);
      },
    });
    const seconds = (performance.now() - base.at) / 1000;
    const cpu = process.cpuUsage(base.cpu);
    const simCpu = (await cpuSecondsOf(sim.pid)) - (await base.simCpu);
    await base.postgres;
    const postgresCpu = await backends.usedSeconds();
    await service.close();
    const end = await checkpointHeight(db);
    const blocks = end.height - base.height;
    const per1000 = (cpuSec: number) => (blocks > 0 ? round((cpuSec / blocks) * 1000) : 0);
    return {
      fromHeight: base.height,
      toHeight: end.height,
      blocks,
      txs: end.txs - base.txs,
      seconds: round(seconds),
      blocksPerSec: round(blocks / seconds),
      txsPerSec: Math.round((end.txs - base.txs) / seconds),
      ingestCpuSecPer1000Blocks: per1000((cpu.user + cpu.system) / 1e6),
      simCpuSecPer1000Blocks: per1000(simCpu),
      postgresCpuSecPer1000Blocks: per1000(postgresCpu),
      ...(stoppedForDisk ? { stoppedForDisk } : {}),
    };
  } finally {
    clearInterval(diskTimer);
    await backends.close();
    process.off('SIGINT', stopOnInterrupt);
    await sim.stop();
    await db.close();
  }
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}
