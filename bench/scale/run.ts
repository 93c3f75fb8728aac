/**
 * Scale bench (issue 21): a database of N txs built through the real ingest service, then measured
 * at that size. Two phases, so the long build never holds the bench lock:
 *
 *   nice -n 19 npx tsx bench/scale/run.ts build --txs 1000000          # build or grow (resumable)
 *   npx tsx bench/scale/run.ts storage                                 # bytes per tx only (no load)
 *   flock /tmp/ri-bench.lock npx tsx bench/scale/run.ts measure        # measure at the size built
 *
 * build: ingests the simulator's Move chain (40 txs per block, 64 accounts, fast signatures) with
 *   every stage on, in large commits, up to ceil(N / 40) blocks; an interrupted build resumes at
 *   the checkpoint; stops below 25 GB free disk (SCALE_MIN_FREE_GB=N sets the floor). Prints the run's rate as JSON.
 * measure: database bytes per tx by table (heap, TOAST, indexes, each index); p50/p99 of every
 *   route class (wrk via bench/lib/http-load.ts, cache off); a migration added on top (CREATE INDEX
 *   CONCURRENTLY and ADD COLUMN) timed while the API is under load, with the lock waits PostgreSQL
 *   saw; then ingest blocks/s of the next --sample-blocks on this database vs the same number on an
 *   empty one (this grows the database by that many blocks). Prints one JSON object.
 *
 * Options: --db-name (ri_bench_scale), --admin-url, --txs, --duration S (10), --connections C (50),
 *   --sample-blocks (2000), --skip routes,migration,ingest, --routes NAME,… (only these route
 *   classes), --port (18090), --schema-up-to FILE
 *   (build: migrate only that far, so `measure` times the later migrations at the built size),
 *   --reindex (measure: also REINDEX CONCURRENTLY the account x message-type index under load).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { cpuSeconds } from '../lib/http-load.js';
import {
  SCALE_CHAIN,
  assertDiskRoom,
  checkpointHeight,
  ensureDatabase,
  freeDiskBytes,
  ingestTo,
} from './build.js';
import { indexDensity, storageReport } from './storage.js';
import { measureAtSize } from './measure.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'db-name': { type: 'string', default: 'ri_bench_scale' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    txs: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    'sample-blocks': { type: 'string', default: '2000' },
    skip: { type: 'string', default: '' },
    routes: { type: 'string', default: '' },
    port: { type: 'string', default: '18090' },
    'schema-up-to': { type: 'string' },
    reindex: { type: 'boolean', default: false },
  },
});

const log = (message: string) =>
  process.stderr.write(`[bench:scale ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function build(): Promise<void> {
  await assertDiskRoom('build');
  const url = await ensureDatabase(args['admin-url']!, args['db-name']!, args['schema-up-to']);
  const toHeight = Math.ceil(Number(args.txs) / SCALE_CHAIN.txsPerBlock);
  const load1 = loadavg()[0];
  log(`building ${args['db-name']} to height ${toHeight} (${args.txs} txs) ...`);
  const run = await ingestTo(url, toHeight, log, cpuSeconds);
  // This host runs PostgreSQL with autovacuum off; an operator's server would have analyzed and
  // vacuumed (visibility map: index-only scans) by now. Without statistics the planner answers
  // tx by hash by walking tx in sequence order (it assumes 0.5 % of rows share a hash).
  log('VACUUM ANALYZE (autovacuum is off on this host) ...');
  const vacuumStarted = performance.now();
  const db = createPostgresDb({ url, maxConnections: 1 });
  await db.exec('VACUUM (ANALYZE)').finally(() => db.close());
  const vacuumSeconds = Math.round((performance.now() - vacuumStarted) / 1000);
  const output = {
    bench: 'scale-build',
    date: new Date().toISOString(),
    database: args['db-name'],
    chain: SCALE_CHAIN,
    run,
    vacuumSeconds,
    freeDiskGb: Math.round((await freeDiskBytes()) / 1024 ** 3),
    machine: { loadAvg1mBefore: load1, loadAvg1mAfter: loadavg()[0] },
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

async function measure(): Promise<void> {
  await assertDiskRoom('measure');
  // Not migrated here: pending migrations are applied, and timed, under API load by the measurement.
  const url = new URL(args['admin-url']!);
  url.pathname = `/${args['db-name']}`;
  const output = await measureAtSize({
    url: url.toString(),
    adminUrl: args['admin-url']!,
    port: Number(args.port),
    seconds: Number(args.duration),
    connections: Number(args.connections),
    sampleBlocks: Number(args['sample-blocks']),
    skip: new Set(args.skip!.split(',').filter(Boolean)),
    routes: new Set(args.routes!.split(',').filter(Boolean)),
    reindex: args.reindex!,
    log,
  });
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

/** Bytes per tx by table and index, and leaf densities: sizes only, no load (no lock needed). */
async function storage(): Promise<void> {
  const url = new URL(args['admin-url']!);
  url.pathname = `/${args['db-name']}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 1 });
  try {
    const { txs } = await checkpointHeight(db);
    const report = { ...(await storageReport(db, txs)), leafDensityPercent: await indexDensity(db) };
    process.stdout.write(
      `${JSON.stringify({ bench: 'scale-storage', date: new Date().toISOString(), storage: report }, null, 2)}\n`,
    );
  } finally {
    await db.close();
  }
}

const phase = positionals[0];
if (phase === 'build') await build();
else if (phase === 'measure') await measure();
else if (phase === 'storage') await storage();
else throw new Error('usage: bench/scale/run.ts build|measure|storage [options] (see the file header)');
