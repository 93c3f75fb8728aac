/**
 * Read-API benchmark (issue 4): autocannon against `rollup-indexer api` running as a child
 * process on PostgreSQL, cache off and on, JSON results on stdout.
 *
 *   npm run bench:api                      # synthetic DB ri_bench_api (1,000,000 txs), seeded once
 *   npm run bench:api -- --url postgres://…/db --busy init1…   # an existing, ingested database
 *
 * Options: --txs N (synthetic size, default 1000000), --reseed, --duration S (20),
 * --connections C (50), --routes a,b (subset by name), --admin-url URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPostgresDb, type Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';

/** The part of autocannon's API used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    busy: { type: 'string' },
    txs: { type: 'string', default: '1000000' },
    reseed: { type: 'boolean', default: false },
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '50' },
    routes: { type: 'string' },
    port: { type: 'string', default: '18080' },
  },
});

const log = (message: string) => process.stderr.write(`[bench:api] ${message}\n`);

async function prepareDatabase(): Promise<{ url: string; synthetic: boolean }> {
  if (args.url) return { url: args.url, synthetic: false };
  const name = 'ri_bench_api';
  const admin = new pg.Client({ connectionString: args['admin-url'] });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (exists && args.reseed) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  if (!exists || args.reseed) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(args['admin-url'] ?? '');
  url.pathname = `/${name}`;
  const db = createPostgresDb({ url: url.toString(), maxConnections: 2 });
  try {
    await migrate(db);
    const have =
      (await db.query<{ n: number }>('SELECT COALESCE(MAX(sequence), 0)::int8 AS n FROM tx')).rows[0]?.n ?? 0;
    const want = Number(args.txs);
    if (have < want) {
      log(`seeding ${want} synthetic txs (existing: ${have}) ...`);
      const started = Date.now();
      await db.exec(
        'TRUNCATE chain_meta, checkpoint, block, validator, account_dict, msg_type_dict, tx, tx_accounts, tx_msg_types RESTART IDENTITY',
      );
      await seedSyntheticChain(db, want);
      log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await db.close();
  }
  return { url: url.toString(), synthetic: true };
}

interface Fixtures {
  txs: number;
  blocks: number;
  busy: string;
  busyTxs: number;
  hashes: string[];
  heights: number[];
  deepKey: string;
  busyCountMs: number;
}

async function loadFixtures(db: Db, busyArg: string | undefined): Promise<Fixtures> {
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows[0] as T;
  const { txs } = await one<{ txs: number }>('SELECT COALESCE(MAX(sequence), 0)::int8 AS txs FROM tx');
  const { blocks } = await one<{ blocks: number }>(
    'SELECT COALESCE(MAX(height), 0)::int8 AS blocks FROM block',
  );
  const busyRow = busyArg
    ? undefined
    : await one<{ id: number; account: Buffer }>('SELECT id, account FROM account_dict WHERE id = $1', [
        BENCH_BUSY_ACCOUNT_ID,
      ]);
  const busy = busyArg ?? `0x${busyRow?.account.toString('hex') ?? ''}`;
  const busyId = busyArg
    ? (
        await one<{ id: number }>(
          'SELECT a.id FROM account_dict a JOIN tx_accounts t ON t.account_id = a.id GROUP BY a.id ORDER BY count(*) DESC LIMIT 1',
        )
      ).id
    : (busyRow?.id ?? 0);
  const countStarted = performance.now();
  const { n: busyTxs } = await one<{ n: number }>(
    'SELECT count(*)::int8 AS n FROM tx_accounts WHERE account_id = $1',
    [busyId],
  );
  const busyCountMs = performance.now() - countStarted;
  const deep = await one<{ sequence: number } | undefined>(
    'SELECT sequence FROM tx_accounts WHERE account_id = $1 ORDER BY sequence DESC OFFSET 99999 LIMIT 1',
    [busyId],
  );
  const deepKey = Buffer.from(JSON.stringify({ sequence: deep?.sequence ?? 1 })).toString('base64');
  const hashes = (
    await db.query<{ h: string }>(
      `SELECT upper(encode(hash, 'hex')) AS h FROM tx WHERE sequence IN (SELECT (1 + floor(random() * $1))::int8 FROM generate_series(1, 1000))`,
      [txs],
    )
  ).rows.map((r) => r.h);
  const heights = Array.from({ length: 1000 }, () => 1 + Math.floor(Math.random() * blocks));
  return { txs, blocks, busy, busyTxs, hashes, heights, deepKey, busyCountMs };
}

interface RouteSpec {
  name: string;
  /** Fixed path, or a generator for per-request variation. */
  path: string | (() => string);
  kind: 'single' | 'list';
}

function routes(f: Fixtures): RouteSpec[] {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;
  const busyPath = `/indexer/tx/v1/txs/by_account/${f.busy}`;
  return [
    { name: 'status', path: '/status', kind: 'single' },
    { name: 'tx_by_hash', path: () => `/indexer/tx/v1/txs/${pick(f.hashes)}`, kind: 'single' },
    { name: 'txs_limit_100', path: '/indexer/tx/v1/txs?pagination.limit=100', kind: 'list' },
    { name: 'busy_account_first_page', path: busyPath, kind: 'list' },
    {
      name: 'busy_account_cursor_1000_pages_deep',
      path: `${busyPath}?pagination.limit=100&pagination.key=${encodeURIComponent(f.deepKey)}`,
      kind: 'list',
    },
    {
      name: 'busy_account_first_page_no_count',
      path: `${busyPath}?pagination.count_total=false`,
      kind: 'list',
    },
    { name: 'blocks_limit_100', path: '/indexer/block/v1/blocks?pagination.limit=100', kind: 'list' },
    { name: 'txs_by_height', path: () => `/indexer/tx/v1/txs/by_height/${pick(f.heights)}`, kind: 'list' },
  ];
}

async function startApi(url: string, cache: boolean, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/bin/cli.ts',
      'api',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      ...(cache ? [] : ['--no-cache']),
    ],
    {
      env: { ...process.env, DATABASE_READ_URL: url, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
  }
  child.kill('SIGTERM');
  throw new Error('api did not start');
}

async function stopApi(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function runRoute(port: number, spec: RouteSpec, seconds: number, connections: number) {
  const base = `http://127.0.0.1:${port}`;
  const path = spec.path;
  const result = await autocannon({
    url: `${base}${typeof path === 'string' ? path : path()}`,
    connections,
    duration: seconds,
    ...(typeof path === 'string'
      ? {}
      : { requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: path() }) }] }),
  });
  return {
    route: spec.name,
    reqPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  const { url, synthetic } = await prepareDatabase();
  const db = createPostgresDb({ url, maxConnections: 2 });
  const fixtures = await loadFixtures(db, args.busy);
  await db.close();
  log(`dataset: ${fixtures.txs} txs, ${fixtures.blocks} blocks, busy account ${fixtures.busyTxs} txs`);
  const seconds = Number(args.duration);
  const connections = Number(args.connections);
  const only = args.routes?.split(',');
  const specs = routes(fixtures).filter((r) => !only || only.includes(r.name));
  const port = Number(args.port);
  const loadBefore = loadavg()[0] ?? 0;
  const results: Record<string, unknown>[] = [];
  for (const cache of [false, true]) {
    const child = await startApi(url, cache, port);
    try {
      for (const spec of specs) {
        log(`${spec.name} cache=${cache ? 'on' : 'off'} ...`);
        results.push({ cache: cache ? 'on' : 'off', ...(await runRoute(port, spec, seconds, connections)) });
      }
    } finally {
      await stopApi(child);
    }
  }
  const off = (name: string) =>
    results.find((r) => r.cache === 'off' && r.route === name) as
      { p99Ms: number; maxMs: number } | undefined;
  const singles = specs.filter((s) => s.kind === 'single').map((s) => off(s.name)?.p99Ms ?? Infinity);
  const lists = specs.filter((s) => s.kind === 'list').map((s) => off(s.name)?.p99Ms ?? Infinity);
  const first = off('busy_account_first_page');
  const deep = off('busy_account_cursor_1000_pages_deep');
  const output = {
    bench: 'api',
    date: new Date().toISOString(),
    database: synthetic ? 'synthetic (bench/api-seed.ts)' : 'given',
    dataset: {
      txs: fixtures.txs,
      blocks: fixtures.blocks,
      busyAccountTxs: fixtures.busyTxs,
      busyCountMs: Math.round(fixtures.busyCountMs),
    },
    settings: { connections, durationSeconds: seconds },
    // Client, API and PostgreSQL share these cores (and with anything else running).
    machine: { cpus: cpus().length, loadAvg1mBefore: loadBefore, loadAvg1mAfter: loadavg()[0] ?? 0 },
    results,
    targets: {
      singleRecordP99Under20ms: singles.every((p) => p < 20),
      listP99Under50ms: lists.every((p) => p < 50),
      deepCursorWithin2xFirstPage: first && deep ? deep.p99Ms <= 2 * first.p99Ms : null,
      busyCountTotalMaxUnderTimeout: first ? first.maxMs < 5000 : null,
    },
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

// ---- synthetic database, shaped exactly like ingest's rows (migrations/20261121_0001_core.sql) ----

const BENCH_BUSY_ACCOUNT_ID = 1;
const BENCH_ACCOUNTS = 20_000;
const TXS_PER_BLOCK = 10;
const SEED_CHUNK = 100_000;
const MSG_TYPES = [
  'cosmos.bank.v1beta1.MsgSend',
  'initia.move.v1.MsgExecute',
  'cosmos.authz.v1beta1.MsgExec',
];

/** Signer of tx s: the busy account signs every 9th tx (> 100,000 of 1,000,000). */
const SIGNER_SQL = `CASE WHEN s % 9 = 0 THEN 1 ELSE 2 + (s * 7919) % ${BENCH_ACCOUNTS - 1} END`;
const RECIPIENT_SQL = `2 + (s * 104729) % ${BENCH_ACCOUNTS - 1}`;
const HEIGHT_SQL = `((s - 1) / ${TXS_PER_BLOCK} + 1)`;

/** About 1.3 KB of Tx JSON per row, the §5.2 shape with a bank send in it. */
const TX_JSON_SQL = `format(
  '{"txhash":"%s","height":"%s","codespace":"","code":0,"data":"","raw_log":"","logs":[],"info":"","gas_wanted":"200000","gas_used":"%s",'
  '"tx":{"body":{"memo":"","messages":[{"@type":"/%s","amount":[{"denom":"uinit","amount":"%s"}],"to_address":"0x%s","from_address":"0x%s"}],'
  '"timeout_height":"0","extension_options":[],"non_critical_extension_options":[]},"auth_info":{"fee":{"payer":"","amount":[{"denom":"uinit","amount":"2250"}],'
  '"granter":"","gas_limit":"200000"},"tip":null,"signer_infos":[{"sequence":"%s","mode_info":{"single":{"mode":"SIGN_MODE_DIRECT"}},'
  '"public_key":{"key":"A8cE1fC0Vb9sRk4mQ2yG7tJ3dP6xW5nZ0hL8aU1oI2eB","@type":"/initia.crypto.v1beta1.ethsecp256k1.PubKey"}}]},"signatures":["%s"]},'
  '"timestamp":"%s","events":[{"type":"tx","attributes":[{"key":"fee","index":true,"value":"2250uinit"},{"key":"fee_payer","index":true,"value":"0x%s"}]},'
  '{"type":"message","attributes":[{"key":"action","index":true,"value":"/%s"},{"key":"sender","index":true,"value":"0x%s"},{"key":"module","index":true,"value":"bank"},'
  '{"key":"msg_index","index":true,"value":"0"}]}]}',
  upper(encode(q.hash, 'hex')), q.height, 90000 + s % 1000, q.msg_type, s * 3, encode(r.account, 'hex'), encode(a.account, 'hex'),
  s / 9, encode(sha512(q.hash), 'base64'),
  to_char(q.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), encode(a.account, 'hex'), q.msg_type, encode(a.account, 'hex'))`;

async function seedSyntheticChain(db: Db, txs: number): Promise<void> {
  const blocks = Math.ceil(txs / TXS_PER_BLOCK);
  const valoper = 'initvaloper1ruhr6nzmdfucsrc7957ykknf0z8eurgu0vn7ag';
  await db.query("INSERT INTO chain_meta (chain_id, vm_type) VALUES ('bench-1', 'move')");
  await db.query("INSERT INTO validator (operator_address, moniker) VALUES ($1, 'bench-operator')", [
    valoper,
  ]);
  await db.query(
    `INSERT INTO account_dict (account) SELECT decode(lpad(to_hex(i * 2654435761), 40, '0'), 'hex') FROM generate_series(1, ${BENCH_ACCOUNTS}) i ORDER BY i`,
  );
  await db.query('INSERT INTO msg_type_dict (msg_type) SELECT unnest($1::text[])', [MSG_TYPES]);
  await db.query(
    `INSERT INTO block SELECT h, sha256(int8send(h)), timestamp '2026-01-01 00:00:00+00' + h * interval '500 ms', 500, $1,
       ${TXS_PER_BLOCK} * 90000, ${TXS_PER_BLOCK} * 200000, ${TXS_PER_BLOCK}, '[{"denom":"uinit","amount":"22500"}]'
     FROM generate_series(1, $2::int8) h`,
    [valoper, blocks],
  );
  for (let lo = 1; lo <= txs; lo += SEED_CHUNK) {
    const hi = Math.min(txs, lo + SEED_CHUNK - 1);
    const range = `generate_series(${lo}::int8, ${hi}::int8) s`;
    await db.query(
      `INSERT INTO tx (sequence, hash, height, signer_id, data)
       SELECT s, q.hash, q.height, ${SIGNER_SQL}, ${TX_JSON_SQL}
       FROM (SELECT s, sha256(int8send(s) || '\\x01'::bytea) AS hash, ${HEIGHT_SQL} AS height,
                    timestamp '2026-01-01 00:00:00+00' + ${HEIGHT_SQL} * interval '500 ms' AS ts,
                    (ARRAY[${MSG_TYPES.map((m) => `'${m}'`).join(',')}])[1 + s % 3] AS msg_type
             FROM ${range}) q
       JOIN account_dict a ON a.id = ${SIGNER_SQL}
       JOIN account_dict r ON r.id = ${RECIPIENT_SQL}`,
    );
    await db.query(
      `INSERT INTO tx_accounts (account_id, sequence, signer)
       SELECT ${SIGNER_SQL}, s, true FROM ${range}
       UNION ALL SELECT ${RECIPIENT_SQL}, s, false FROM ${range} WHERE ${RECIPIENT_SQL} <> ${SIGNER_SQL}`,
    );
    await db.query(`INSERT INTO tx_msg_types (msg_type_id, sequence) SELECT 1 + s % 3, s FROM ${range}`);
    log(`  ${hi} / ${txs} txs`);
  }
  await db.query(
    "INSERT INTO checkpoint (stream, height, block_hash, tx_sequence) SELECT 'blocks', height, hash, $1 FROM block ORDER BY height DESC LIMIT 1",
    [txs],
  );
  await db.exec('VACUUM ANALYZE');
}

await main();
