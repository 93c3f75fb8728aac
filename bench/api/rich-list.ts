/**
 * Rich-list read-API benchmark (issue 11): wrk or autocannon against `rollup-indexer api` (child
 * process, cache off) on PostgreSQL, JSON results on stdout.
 *
 *   npm run bench:richlist-api -- [--admin-url postgres://…/postgres] [--reseed] [--duration 10] [--connections 50]
 *
 * The dataset is written by SQL straight into the real schema (migrations/*.sql), not ingested:
 * one denom with 1,000,000 holders of distinct-ish balances (ties included). Pages of 100: the
 * first, and page 100 reached by key (the cursor a client holds after 99 pages) and by offset.
 * Database ri_bench_richlist is created once and reused (--reseed rebuilds it).
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { prepareBenchDatabase } from '../lib/harness.js';
import { runRoutes, WARMUP_SECONDS, type RouteSpec } from '../lib/http-load.js';

const { values: args } = parseArgs({
  options: {
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    reseed: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    port: { type: 'string', default: '18091' },
  },
});
const log = (message: string) => process.stderr.write(`[bench:richlist-api] ${message}\n`);

const DB_NAME = 'ri_bench_richlist';
const HOLDERS = 1_000_000;
const DENOM = 'uinit';

const prepareDatabase = () =>
  prepareBenchDatabase({
    adminUrl: args['admin-url'] ?? '',
    name: DB_NAME,
    reseed: args.reseed ?? false,
    isSeeded: async (db) =>
      Number((await db.query<{ n: number }>('SELECT count(*) AS n FROM rich_list')).rows[0]?.n) >= HOLDERS,
    seed,
  });

async function seed(db: Db): Promise<void> {
  log('seeding by SQL ...');
  const statements = [
    `INSERT INTO chain_meta (chain_id, vm_type) VALUES ('bench-richlist-1', 'wasm')`,
    `INSERT INTO block (height, hash, "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee)
       VALUES (1, '\\x00', now(), 0, '', 0, 0, 0, '[]')`,
    `INSERT INTO account_dict (account) SELECT decode(md5(i::text) || substr(md5('a' || i), 1, 8), 'hex')
       FROM generate_series(1, ${HOLDERS}) i`,
    // Balances spread over 12 orders of magnitude, about one in ten shared with another holder.
    `INSERT INTO rich_list (denom, account_id, amount)
       SELECT '${DENOM}', id, (floor(power(10, 1 + (hashint4(id::int) & 1023) / 93.0)) + (id % 100000))::numeric
       FROM account_dict`,
    `INSERT INTO rich_list_holders (denom, holders) VALUES ('${DENOM}', ${HOLDERS})`,
    `INSERT INTO checkpoint (stream, height) VALUES ('rich_list', 1) ON CONFLICT DO NOTHING`,
    // What autovacuum does on a live database: the visibility map makes the scans index-only.
    'VACUUM ANALYZE',
  ];
  for (const sql of statements) await db.query(sql);
}

/** The key the route hands out after 99 pages of 100 (from row 9,900 of its order). */
async function page100Key(url: string): Promise<string> {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    const { rows } = await db.query<{ amount: string; account_id: number }>(
      `SELECT amount::text AS amount, account_id FROM rich_list WHERE denom = $1 AND amount > 0
        ORDER BY amount DESC, account_id DESC OFFSET 9899 LIMIT 1`,
      [DENOM],
    );
    const last = rows[0]!;
    return encodeURIComponent(
      Buffer.from(JSON.stringify({ amount: last.amount, account_id: last.account_id })).toString('base64'),
    );
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const url = await prepareDatabase();
  const key = await page100Key(url);
  const seconds = Number(args.duration);
  const connections = Number(args.connections);
  const port = Number(args.port);
  const base = `/indexer/richlist/v1/${DENOM}?pagination.limit=100`;
  const specs: RouteSpec[] = [
    { name: 'richlist_first_page', path: base, kind: 'list' },
    { name: 'richlist_page_100_by_key', path: `${base}&pagination.key=${key}`, kind: 'list' },
    { name: 'richlist_page_100_by_offset', path: `${base}&pagination.offset=9900`, kind: 'list' },
  ];
  const loadBefore = loadavg()[0] ?? 0;
  const { results, ceiling } = await runRoutes(url, specs, { port, seconds, connections, log });
  console.log(
    JSON.stringify({
      bench: 'richlist-api',
      date: new Date().toISOString(),
      database: `PostgreSQL ${DB_NAME}, seeded by SQL into the real schema (not ingested)`,
      dataset: { denom: DENOM, holders: HOLDERS },
      settings: { connections, durationSeconds: seconds, warmupSeconds: WARMUP_SECONDS, cache: 'off' },
      machine: { cpus: cpus().length, loadAvg1mBefore: loadBefore, loadAvg1mAfter: loadavg()[0] ?? 0 },
      results,
      ceiling,
      targets: { p99Under50ms: results.every((r) => r.p99Ms < 50) },
    }),
  );
}

await main();
