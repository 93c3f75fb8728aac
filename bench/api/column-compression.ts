/**
 * Read cost of the stored tx JSON by TOAST compression (issues 21, 24): copies a table's rows into
 * one scratch table per storage choice (pglz, lz4, uncompressed out-of-line), then runs the list
 * readers' exact statements against each copy and reports PostgreSQL CPU and bytes per row.
 *
 *   npx tsx bench/api/column-compression.ts --url postgres://postgres@127.0.0.1:5432/ri_bench_api
 *
 * Options: --table tx|evm_tx (tx), --runs N (statements per measurement, 300), --rounds R (2),
 * --keep (leave the scratch tables). Run it under `flock /tmp/ri-bench.lock`.
 *
 * Two measures per statement and choice:
 *  - `cpuUsPerPage`: the serving backend's CPU (/proc/<pid>/stat) over `runs` executions whose
 *    rows the client fetches: what a page costs the server, detoasting and sending included.
 *  - EXPLAIN (ANALYZE, BUFFERS) of the statement as the reader runs it, and of the same statement
 *    with `length(data)` in place of `data`. PostgreSQL 15 has no EXPLAIN (SERIALIZE), so the
 *    plain plan never detoasts its output column; length() forces the detoast inside the plan.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cpuSeconds } from '../lib/http-load.js';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/ri_bench_api' },
    table: { type: 'string', default: 'tx' },
    runs: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
  },
});

const log = (message: string) => process.stderr.write(`[bench:compression] ${message}\n`);

/** Each storage choice: the column settings of its copy. */
const CHOICES = {
  pglz: 'SET COMPRESSION pglz, ALTER COLUMN data SET STORAGE EXTENDED',
  lz4: 'SET COMPRESSION lz4, ALTER COLUMN data SET STORAGE EXTENDED',
  uncompressed: 'SET STORAGE EXTERNAL',
} as const;
type Choice = keyof typeof CHOICES;

/** Per table: its account edges and the per-account counts that name the busiest account. */
const ACCOUNT_TABLES = {
  tx: { edges: 'tx_accounts', counts: 'tx_account_counts' },
  evm_tx: { edges: 'evm_tx_accounts', counts: 'evm_tx_account_counts' },
} as const;

/** The list readers' statements (src/store/readers/sequence-tables.ts); `read` picks the column. */
function statements(table: string, read: (column: string) => string, edges: string): Record<string, string> {
  return {
    list_100: `SELECT sequence, ${read('data')} FROM ${table} WHERE true ORDER BY sequence DESC LIMIT 101`,
    list_10: `SELECT sequence, ${read('data')} FROM ${table} WHERE true ORDER BY sequence DESC LIMIT 11`,
    busy_account_100:
      `SELECT t.sequence, ${read('t.data')} FROM (SELECT a.sequence FROM ${edges} a WHERE a.account_id = $1 ` +
      `ORDER BY a.sequence DESC LIMIT 101) q JOIN ${table} t ON t.sequence = q.sequence ORDER BY t.sequence DESC`,
  };
}

/**
 * A copy of `source` whose JSON is stored by `choice`. `data || ''` makes each value a fresh,
 * uncompressed datum: INSERT ... SELECT of the bare column would keep the source's compressed
 * bytes as they are.
 */
async function makeCopy(client: pg.Client, source: string, choice: Choice): Promise<string> {
  const copy = `ri_compression_${source}_${choice}`;
  await client.query(`DROP TABLE IF EXISTS ${copy}`);
  await client.query(`CREATE TABLE ${copy} (LIKE ${source})`);
  await client.query(`ALTER TABLE ${copy} ALTER COLUMN data ${CHOICES[choice]}`);
  const { rows } = await client.query<{ name: string }>(
    'SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum',
    [source],
  );
  const columns = rows.map((r) => (r.name === 'data' ? `data || ''` : r.name));
  await client.query(`INSERT INTO ${copy} SELECT ${columns.join(', ')} FROM ${source}`);
  await client.query(`ALTER TABLE ${copy} ADD PRIMARY KEY (sequence)`);
  await client.query(`VACUUM ANALYZE ${copy}`);
  return copy;
}

async function storage(client: pg.Client, table: string) {
  const { rows } = await client.query<Record<string, string>>(
    `SELECT count(*) AS rows, avg(pg_column_size(data))::int AS stored, avg(octet_length(data))::int AS raw,
            pg_relation_size('${table}') AS heap,
            pg_total_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = '${table}'::regclass)) AS toast,
            (SELECT string_agg(DISTINCT COALESCE(pg_column_compression(data), 'none'), ',') FROM ${table}) AS methods
       FROM ${table}`,
  );
  const r = rows[0]!;
  const n = Number(r.rows);
  return {
    rows: n,
    avgRawBytes: Number(r.raw),
    avgStoredBytes: Number(r.stored),
    methods: r.methods,
    heapBytesPerRow: Math.round(Number(r.heap) / n),
    toastBytesPerRow: Math.round(Number(r.toast) / n),
  };
}

/** Backend CPU µs per execution, rows fetched by the client. */
async function cpuPerPage(client: pg.Client, pid: number, sql: string, params: unknown[], runs: number) {
  for (let i = 0; i < 20; i++) await client.query(sql, params); // warm the buffers and the plan
  const before = await cpuSeconds(pid);
  const started = performance.now();
  for (let i = 0; i < runs; i++) await client.query(sql, params);
  const wallMs = performance.now() - started;
  return {
    cpuUsPerPage: Math.round((((await cpuSeconds(pid)) - before) * 1e6) / runs),
    wallUsPerPage: Math.round((wallMs * 1000) / runs),
  };
}

/** Execution time and shared buffers of one EXPLAIN (ANALYZE, BUFFERS), median of 5. */
async function explain(client: pg.Client, sql: string, params: unknown[]) {
  const samples: { ms: number; hit: number; read: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await client.query<{
      'QUERY PLAN': [{ 'Execution Time': number; Plan: Record<string, number> }];
    }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params);
    const top = rows[0]!['QUERY PLAN'][0];
    samples.push({
      ms: top['Execution Time'],
      hit: top.Plan['Shared Hit Blocks'] ?? 0,
      read: top.Plan['Shared Read Blocks'] ?? 0,
    });
  }
  samples.sort((a, b) => a.ms - b.ms);
  const mid = samples[2]!;
  return { execUs: Math.round(mid.ms * 1000), sharedHit: mid.hit, sharedRead: mid.read };
}

async function measure(client: pg.Client, pid: number, copy: string, busyId: number, runs: number) {
  const { edges } = ACCOUNT_TABLES[args.table as keyof typeof ACCOUNT_TABLES];
  const plain = statements(copy, (column) => column, edges);
  const forced = statements(copy, (column) => `length(${column})`, edges);
  const out: Record<string, unknown> = {};
  for (const [name, sql] of Object.entries(plain)) {
    const params = sql.includes('$1') ? [busyId] : [];
    out[name] = {
      ...(await cpuPerPage(client, pid, sql, params, runs)),
      explain: await explain(client, sql, params),
      explainDetoasted: await explain(client, forced[name]!, params),
    };
  }
  return out;
}

async function main(): Promise<void> {
  const client = new pg.Client({ connectionString: args.url, application_name: 'bench-compression' });
  await client.connect();
  try {
    const source = args.table ?? 'tx';
    const tables = ACCOUNT_TABLES[source as keyof typeof ACCOUNT_TABLES];
    if (!tables) throw new Error('--table must be tx or evm_tx');
    const { rows: pidRows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = pidRows[0]!.pid;
    const { rows: busy } = await client.query<{ account_id: number }>(
      `SELECT account_id FROM ${tables.counts} ORDER BY txs DESC LIMIT 1`,
    );
    const busyId = Number(busy[0]?.account_id ?? 0);
    const choices = Object.keys(CHOICES) as Choice[];
    const copies = new Map<Choice, string>();
    const sizes: Record<string, unknown> = { source: await storage(client, source) };
    for (const choice of choices) {
      log(`copying ${source} as ${choice} ...`);
      const copy = await makeCopy(client, source, choice);
      copies.set(choice, copy);
      sizes[choice] = await storage(client, copy);
    }
    const rounds: Record<string, unknown>[] = [];
    for (let round = 0; round < Number(args.rounds); round++) {
      // Alternate the order each round, so no choice always runs first on a cold cache.
      const order = round % 2 === 0 ? choices : [...choices].reverse();
      const results: Record<string, unknown> = {};
      for (const choice of order) {
        log(`round ${round + 1}: ${choice} ...`);
        results[choice] = await measure(client, pid, copies.get(choice)!, busyId, Number(args.runs));
      }
      rounds.push(results);
    }
    if (!args.keep) for (const copy of copies.values()) await client.query(`DROP TABLE ${copy}`);
    process.stdout.write(
      `${JSON.stringify({ bench: 'column-compression', date: new Date().toISOString(), table: source, busyAccountId: busyId, runs: Number(args.runs), sizes, rounds }, null, 2)}\n`,
    );
  } finally {
    await client.end();
  }
}

await main();
