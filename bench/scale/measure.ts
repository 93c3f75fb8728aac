/**
 * The measuring phase of bench/scale/run.ts (run it under the bench lock): storage, routes, a migration
 * under load and the ingest sample, at the size the database has.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { migrate, migrationNames } from '../../src/store/migrations/migrate.js';
import { cpuSeconds, startApi, stopApi } from '../lib/http-load.js';
import { loadRouteWithCpu } from './route-load.js';
import { checkpointHeight, ensureDatabase, freeDiskBytes, ingestTo, type IngestRun } from './build.js';
import { migrationUnderLoad, PROBE_STEPS, REINDEX_STEP, type MigrationStep } from './migration.js';
import { loadRouteFixtures, scaleRoutes, type RouteFixtures } from './routes.js';
import { compressionSample, indexDensity, storageReport, txDataSample } from './storage.js';

export interface MeasureOptions {
  url: string;
  adminUrl: string;
  port: number;
  seconds: number;
  connections: number;
  sampleBlocks: number;
  skip: Set<string>;
  /** Only these route classes (all when empty). */
  routes: Set<string>;
  /** Also time REINDEX CONCURRENTLY of the account x message-type index (and keep it compact). */
  reindex: boolean;
  log: (message: string) => void;
}

export async function measureAtSize(o: MeasureOptions): Promise<Record<string, unknown>> {
  const load1 = loadavg()[0];
  const db = createPostgresDb({ url: o.url, maxConnections: 2 });
  let fixtures: RouteFixtures;
  let storage;
  let txData;
  let pending: string[];
  try {
    const { txs } = await checkpointHeight(db);
    o.log(`storage at ${txs} txs ...`);
    storage = await storageReport(db, txs);
    txData = { ...(await txDataSample(db, txs)), methods: await compressionSample(db, txs) };
    storage = { ...storage, leafDensityPercent: await indexDensity(db) };
    fixtures = await loadRouteFixtures(db);
    pending = await pendingMigrations(db);
  } finally {
    await db.close();
  }
  const { hashes: _h, heights: _b, ...dataset } = fixtures;
  const output: Record<string, unknown> = {
    bench: 'scale',
    date: new Date().toISOString(),
    dataset,
    storage,
    txData,
  };
  const api = await startApi(o.url, false, o.port);
  try {
    if (!o.skip.has('migration')) output.migration = await migrations(o, fixtures, pending);
    if (pending.length > 0 || o.reindex) output.storageAfterMigrations = await storageNow(o.url);
    if (!o.skip.has('routes')) {
      const before = await indexScans(o.url);
      output.routes = await routes(o, api, fixtures);
      await stopApi(api); // its backends exit and flush their statistics
      output.indexScansByRoutes = scansSince(before, await indexScans(o.url));
    }
  } finally {
    if (api.exitCode === null && api.signalCode === null) await stopApi(api);
  }
  if (!o.skip.has('ingest')) output.ingest = await ingestSample(o);
  output.machine = {
    loadAvg1mBefore: load1,
    loadAvg1mAfter: loadavg()[0],
    freeDiskGb: Math.round((await freeDiskBytes()) / 1024 ** 3),
  };
  return output;
}

/** idx_scan of every index (cumulative statistics). */
async function indexScans(url: string): Promise<Map<string, number>> {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    // Backends flush their statistics when they exit: wait for the API's to be gone.
    for (let i = 0; i < 100; i++) {
      const { rows } = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      if (Number(rows[0]?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { rows } = await db.query<{ name: string; scans: string }>(
      "SELECT relname || '.' || indexrelname AS name, idx_scan AS scans FROM pg_stat_user_indexes",
    );
    return new Map(rows.map((r) => [r.name, Number(r.scans)]));
  } finally {
    await db.close();
  }
}

/** Index scans the route runs made, per index; indexes no route used are listed as 0. */
function scansSince(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, scans] of [...after].sort((a, b) => a[0].localeCompare(b[0]))) {
    out[name] = scans - (before.get(name) ?? 0);
  }
  return out;
}

/** Migrations this branch has that the database has not applied yet. */
async function pendingMigrations(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
  const done = new Set(rows.map((r) => r.name));
  return (await migrationNames()).filter((name) => !done.has(name));
}

async function storageNow(url: string) {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    return await storageReport(db, (await checkpointHeight(db)).txs);
  } finally {
    await db.close();
  }
}

/**
 * The pending migrations (as `rollup-indexer migrate` applies them: one transaction), then the
 * generic probes, each while the API is under load.
 */
async function migrations(o: MeasureOptions, f: RouteFixtures, pending: string[]) {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;
  const busy = `/indexer/tx/v1/txs/by_account/${f.busy.address}?pagination.limit=100&pagination.count_total=false`;
  const steps: MigrationStep[] = [];
  if (pending.length > 0) {
    steps.push({
      name: `pending: ${pending.join(', ')}`,
      lock: 'as each file documents',
      run: async () => {
        const db = createPostgresDb({ url: o.url, maxConnections: 1 });
        await migrate(db).finally(() => db.close());
      },
    });
  }
  return {
    load: 'half tx by hash, half the busiest account first page (100 txs), wrk, cache off',
    steps: await migrationUnderLoad({
      url: o.url,
      base: `http://127.0.0.1:${o.port}`,
      path: () => (Math.random() < 0.5 ? `/indexer/tx/v1/txs/${pick(f.hashes)}` : busy),
      connections: o.connections,
      steps: [...steps, ...PROBE_STEPS, ...(o.reindex ? [REINDEX_STEP] : [])],
      log: o.log,
    }),
  };
}

async function routes(o: MeasureOptions, api: Awaited<ReturnType<typeof startApi>>, f: RouteFixtures) {
  const results = [];
  for (const spec of scaleRoutes(f).filter((r) => o.routes.size === 0 || o.routes.has(r.name))) {
    o.log(`${spec.name} ...`);
    results.push(
      await loadRouteWithCpu({
        url: o.url,
        api,
        port: o.port,
        spec,
        seconds: o.seconds,
        connections: o.connections,
      }),
    );
  }
  return { connections: o.connections, seconds: o.seconds, cache: 'off', results };
}

/**
 * Blocks/s of `sampleBlocks` heights on this database vs the same count on an almost empty one,
 * each after 200 uncounted warm-up blocks in the same run (start-up work — the first blocks'
 * dictionary inserts, the simulator's NFT address index at high heights — would otherwise weigh
 * on one side only). Grows this database by 200 + `sampleBlocks`.
 */
async function ingestSample(o: MeasureOptions): Promise<Record<string, IngestRun>> {
  const emptyName = 'ri_bench_scale_empty';
  const admin = new pg.Client({ connectionString: o.adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${emptyName} WITH (FORCE)`);
  await admin.end();
  const emptyUrl = await ensureDatabase(o.adminUrl, emptyName);
  try {
    const warm = 200;
    o.log(`ingest sample: empty database, ${warm} warm-up blocks, then ${o.sampleBlocks} ...`);
    const empty = await ingestTo(emptyUrl, warm + o.sampleBlocks, o.log, cpuSeconds, warm);
    const db = createPostgresDb({ url: o.url, maxConnections: 1 });
    const { height } = await checkpointHeight(db).finally(() => db.close());
    o.log(`ingest sample: at size (height ${height}), ${warm} warm-up blocks, then ${o.sampleBlocks} ...`);
    const atSize = await ingestTo(o.url, height + warm + o.sampleBlocks, o.log, cpuSeconds, warm);
    return { empty, atSize };
  } finally {
    const drop = new pg.Client({ connectionString: o.adminUrl });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS ${emptyName} WITH (FORCE)`);
    await drop.end();
  }
}
