/**
 * `vip scores compute` over a two-week window (issue 22 figure): a PostgreSQL database seeded
 * through the real block writer with N txs from A accounts spread over 14 days (kept between runs
 * under a name per size), then computeScores with every tx metric kind, in a child process so
 * its peak RSS is the compute's alone.
 *   npx tsx bench/vip/scores-compute.ts [--txs 1000000] [--accounts 100000] [--block-ms 5000] [--runs 2]
 * `--seed-only` builds the database and exits (seeding is not a figure: run it outside the bench
 * lock, then the computes under it).
 * Prints one JSON object. Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { computeScores } from '../../src/vip/scores/compute.js';
import { parseRules } from '../../src/vip/scores/rules.js';
import {
  accountOf,
  bech32Of,
  hexOf,
  writeScoresChain,
  type BlockSpec,
  type TxSpec,
} from '../../test/vip/scores-chain.js';
import { peakRssMb } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    txs: { type: 'string', default: '1000000' },
    accounts: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '2' },
    'block-ms': { type: 'string', default: '5000' },
    'seed-only': { type: 'boolean', default: false },
    compute: { type: 'boolean', default: false },
  },
});
const txs = Number(values.txs);
const accounts = Number(values.accounts);
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BLOCK_MS = Number(values['block-ms']);
const dbName = `ri_bench_vip_scores_${txs}_${accounts}_${BLOCK_MS}`;
const T0 = Date.UTC(2026, 9, 1);
const DAYS = 14;
const CONTRACT = accountOf('bench-contract');

function dbUrl(): string {
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
}

/** Park-Miller PRNG: the same chain for the same size. */
function prng(seed: number) {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

/** Realistic event payload: real txs carry a few KB of events; the SQL reads past them. */
const PADDING = Array.from({ length: 12 }, (_, i) => ({ key: `attr_${i}`, value: 'x'.repeat(100) }));

function* chain(): Generator<BlockSpec> {
  const random = prng(42);
  const blocks = Math.floor((DAYS * 86_400_000) / BLOCK_MS);
  const perBlock = txs / blocks;
  let made = 0;
  for (let b = 0; b < blocks; b++) {
    const count = Math.round((b + 1) * perBlock) - made;
    made += count;
    const list: TxSpec[] = [];
    for (let i = 0; i < count; i++) {
      // Zipf-like: a few busy accounts, a long tail.
      const signer = accountOf(`bench-${Math.floor(accounts * random() ** 2)}`);
      const kind = random();
      const messages =
        kind < 0.5
          ? [{ '@type': '/cosmos.bank.v1beta1.MsgSend', from_address: bech32Of(signer), padding: PADDING }]
          : kind < 0.8
            ? [
                {
                  '@type': '/initia.move.v1.MsgExecute',
                  sender: bech32Of(signer),
                  module_address: '0x1',
                  module_name: 'dex',
                  function_name: random() < 0.5 ? 'swap' : 'provide',
                  padding: PADDING,
                },
              ]
            : [
                {
                  '@type': '/minievm.evm.v1.MsgCall',
                  sender: bech32Of(signer),
                  contract_addr: hexOf(CONTRACT),
                  input: random() < 0.5 ? '0xa9059cbb00' : '0x095ea7b300',
                  padding: PADDING,
                },
              ];
      list.push({
        signer,
        code: random() < 0.05 ? 5 : 0,
        gasUsed: String(50_000 + Math.floor(random() * 100_000)),
        fees: [{ denom: 'uinit', amount: String(1000 + Math.floor(random() * 9000)) }],
        messages,
      });
    }
    yield { timeMs: T0 + b * BLOCK_MS, txs: list };
  }
  // The first block after the window: only with it stored is the window's end covered.
  yield { timeMs: T0 + blocks * BLOCK_MS, txs: [] };
}

async function seedIfNeeded(): Promise<{ seededSeconds: number | null }> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName])).rowCount;
  if (!exists) await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const db = createPostgresDb({ url: dbUrl(), maxConnections: 2 });
  try {
    await migrate(db);
    const { rows } = await db.query<{ n: number }>(
      "SELECT coalesce((SELECT height FROM checkpoint WHERE stream = 'blocks'), 0) AS n",
    );
    if (Number(rows[0]?.n) > 0) return { seededSeconds: null };
    const started = performance.now();
    await writeScoresChain(db, { chainId: 'bench-evm-1', vm: 'evm' }, chain(), 200);
    await db.query('ANALYZE');
    return { seededSeconds: Math.round((performance.now() - started) / 1000) };
  } finally {
    await db.close();
  }
}

const RULES = parseRules(
  `version: 1
metrics:
  - { name: signed, kind: txs_signed, weight: 1 }
  - { name: gas, kind: gas_used, weight: "0.00001" }
  - { name: fees, kind: fees_paid, denom: uinit, weight: "0.001" }
  - { name: swaps, kind: msg_txs, msg_types: [initia.move.v1.MsgExecute], move: { module_address: "0x1", module_name: dex, function: swap }, weight: 5 }
  - { name: calls, kind: evm_txs_to, contract: "${hexOf(CONTRACT)}", selector: "0xa9059cbb", weight: 2 }
  - { name: days, kind: active_days, weight: 3 }
cap: 100000
`,
  'bench.yaml',
);

/** utime + stime of a local process in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One compute over the whole two weeks; runs in the child. */
async function computeOnce() {
  const db = createPostgresDb({ url: dbUrl(), maxConnections: 1 });
  // One connection: every statement runs in this backend, whose CPU time is the SQL's cost.
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = Number(rows[0]?.pid);
  const backendBefore = processCpuMs(backend);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const timings: Record<string, number> = {};
  try {
    const result = await computeScores(
      { db },
      {
        stage: 1n,
        rules: { rules: RULES, sha256: '0'.repeat(64), path: 'bench.yaml' },
        window: { from: new Date(T0).toISOString(), to: new Date(T0 + DAYS * 86_400_000).toISOString() },
      },
    );
    timings.wallMs = Math.round(performance.now() - started);
    const used = process.cpuUsage(cpu);
    return {
      ...timings,
      nodeCpuMs: Math.round((used.user + used.system) / 1000),
      postgresBackendCpuMs: processCpuMs(backend) - backendBefore,
      peakRssMb: peakRssMb(),
      addresses: result.rows.length,
      window: result.meta.window,
      metrics: result.meta.metrics,
    };
  } finally {
    await db.close();
  }
}

if (values.compute) {
  console.log(JSON.stringify(await computeOnce()));
} else {
  const seeded = await seedIfNeeded();
  if (values['seed-only']) {
    console.log(JSON.stringify({ bench: 'vip-scores', database: dbName, ...seeded }));
    process.exit(0);
  }
  const runs = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const child = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        process.argv[1]!,
        '--compute',
        '--txs',
        String(txs),
        '--accounts',
        String(accounts),
        '--block-ms',
        String(BLOCK_MS),
      ],
      { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
    ).toString();
    const r = JSON.parse(child) as Record<string, unknown>;
    runs.push(r);
  }
  console.log(
    JSON.stringify({ bench: 'vip-scores', database: dbName, txs, accounts, ...seeded, runs }, null, 2),
  );
}
