/**
 * Deep-offset benchmark (issue 12): what one `pagination.offset` request costs on a large table,
 * before (a plain `OFFSET`, which walks and drops that many rows) and after (the offset of a gapless
 * sequence turned into a key look-up; offset scans elsewhere refused past API_MAX_OFFSET).
 * JSON on stdout.
 *
 *   npx tsx bench/api/offset.ts                       # database ri_bench_offset, 200000 synthetic txs
 *   npx tsx bench/api/offset.ts --txs 1000000 --reseed
 *
 * The table is filled by SQL (`generate_series`), rows shaped like stored txs (~700 bytes of JSON
 * text each); the `after` figures go through the API app (`app.inject`), the `before` figures run
 * the statement the reader used to send. Each figure is the median of --repeat runs, plus the
 * first (coldest) run.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { percentile } from '../lib/harness.js';

const { values: args } = parseArgs({
  options: {
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    database: { type: 'string', default: 'ri_bench_offset' },
    txs: { type: 'string', default: '200000' },
    repeat: { type: 'string', default: '5' },
    reseed: { type: 'boolean', default: false },
  },
});
const log = (message: string) => process.stderr.write(`[bench:offset] ${message}\n`);

async function prepare(txs: number): Promise<string> {
  const admin = new pg.Client({ connectionString: args['admin-url'] });
  await admin.connect();
  const name = args.database ?? 'ri_bench_offset';
  if (args.reseed) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(args['admin-url'] ?? '');
  url.pathname = `/${name}`;
  const db = createPostgresDb({ url: url.toString() });
  await migrate(db);
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tx');
  if ((rows[0]?.n ?? 0) !== txs) {
    log(`filling tx with ${txs} rows`);
    await db.exec(`TRUNCATE tx, tx_accounts, tx_account_counts, block, chain_meta`);
    await db.query(`INSERT INTO chain_meta (chain_id, vm_type) VALUES ('bench-offset-1', 'move')`);
    await db.query(
      `INSERT INTO tx (sequence, hash, height, signer_id, data)
       SELECT s, sha256(int8send(s)), 1 + s / 40, 1,
              json_build_object('txhash', upper(encode(sha256(int8send(s)), 'hex')), 'height', (1 + s / 40)::text,
                                'pad', repeat('x', 600))::text
       FROM generate_series(1, $1::bigint) AS s`,
      [txs],
    );
    await db.exec('ANALYZE tx');
  }
  await db.close();
  return url.toString();
}

async function time(run: () => Promise<unknown>, repeat: number) {
  const samples: number[] = [];
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  const first = samples[0] ?? 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return { firstMs: Number(first.toFixed(2)), medianMs: Number(percentile(sorted, 50).toFixed(2)) };
}

async function main() {
  const txs = Number(args.txs);
  const repeat = Number(args.repeat);
  const url = await prepare(txs);
  const db = createPostgresDb({ url, readOnly: true, statementTimeoutMs: 60_000, preparedStatements: true });
  const app = await createApiApp({
    options: loadApiOptions({ CHAIN_ID: 'bench-offset-1', VM_TYPE: 'move', API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
  });
  const results = [];
  for (const offset of [1_000, 100_000, txs - 100, 9_007_199_254_740_991]) {
    // The statement /txs sent before issue 12 for this page (limit 100, newest first).
    const before = await time(
      () =>
        db.query('SELECT sequence, data FROM tx WHERE true ORDER BY sequence DESC LIMIT $1 OFFSET $2', [
          101,
          offset,
        ]),
      repeat,
    );
    let status = 0;
    const after = await time(async () => {
      const res = await app.inject({ url: `/indexer/tx/v1/txs?pagination.offset=${offset}` });
      status = res.statusCode;
    }, repeat);
    results.push({ route: '/indexer/tx/v1/txs', offset, before, after, afterStatus: status });
  }
  await app.close();
  await db.close();
  process.stdout.write(`${JSON.stringify({ bench: 'offset', txs, repeat, results }, null, 2)}\n`);
}

await main();
