/**
 * Bytes per tx all-in (issue 34): a simulated chain indexed into PostgreSQL through the real ingest
 * service with every stage on (blocks, NFTs, rich list; internal txs on EVM), less a freshly
 * migrated database, per table (heap, TOAST, indexes) and per index, divided by the Cosmos txs
 * stored. Both databases are VACUUM ANALYZEd first (what autovacuum leaves on an operator's server:
 * visibility and free-space maps included).
 *
 *   npm run bench:bytes -- [--vm move] [--blocks 3000] [--txs 3] [--keep]
 *
 * --keep leaves the built database (its name is printed) for EXPLAIN and column sizes.
 * Needs TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). Prints one JSON object.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Db } from '../../src/store/driver/db.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { benchIngestService, startBenchChain } from '../lib/harness.js';

const { values: args } = parseArgs({
  options: {
    vm: { type: 'string', default: 'move' },
    blocks: { type: 'string', default: '3000' },
    txs: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const vm = args.vm as 'move' | 'wasm' | 'evm';

interface Sizes {
  tables: Map<string, { rows: number; heap: number; toast: number; idx: number; total: number }>;
  indexes: Map<string, { table: string; bytes: number; def: string }>;
  database: number;
}

async function sizes(db: Db): Promise<Sizes> {
  await db.exec('VACUUM (ANALYZE)');
  const { rows: tables } = await db.query<Record<string, string>>(
    `SELECT c.relname AS table, c.reltuples::int8 AS rows,
            pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS heap,
            COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS toast,
            pg_indexes_size(c.oid) AS idx, pg_total_relation_size(c.oid) AS total
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'`,
  );
  const { rows: indexes } = await db.query<Record<string, string>>(
    `SELECT t.relname AS table, i.relname AS index, pg_relation_size(i.oid) AS bytes,
            pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`,
  );
  const { rows: database } = await db.query<{ bytes: string }>(
    'SELECT pg_database_size(current_database()) AS bytes',
  );
  return {
    tables: new Map(
      tables.map((t) => [
        t.table!,
        {
          rows: Math.max(0, Number(t.rows)),
          heap: Number(t.heap),
          toast: Number(t.toast),
          idx: Number(t.idx),
          total: Number(t.total),
        },
      ]),
    ),
    indexes: new Map(
      indexes.map((i) => [i.index!, { table: i.table!, bytes: Number(i.bytes), def: i.def! }]),
    ),
    database: Number(database[0]?.bytes ?? 0),
  };
}

/** Built minus fresh, per tx, largest first; tables that did not grow are left out. */
function report(built: Sizes, fresh: Sizes, txs: number) {
  const per = (bytes: number) => Math.round((bytes / Math.max(txs, 1)) * 10) / 10;
  const tables = [...built.tables].map(([table, b]) => {
    const f = fresh.tables.get(table) ?? { heap: 0, toast: 0, idx: 0, total: 0 };
    const indexes = [...built.indexes]
      .filter(([, i]) => i.table === table)
      .map(([index, i]) => ({
        index,
        bytesPerTx: per(i.bytes - (fresh.indexes.get(index)?.bytes ?? 0)),
        definition: i.def,
      }))
      .sort((x, y) => y.bytesPerTx - x.bytesPerTx);
    return {
      table,
      rows: b.rows,
      rowsPerTx: Math.round((b.rows / Math.max(txs, 1)) * 1000) / 1000,
      heapBytesPerTx: per(b.heap - f.heap),
      toastBytesPerTx: per(b.toast - f.toast),
      indexBytesPerTx: per(b.idx - f.idx),
      totalBytesPerTx: per(b.total - f.total),
      indexes,
    };
  });
  const grown = tables
    .filter((t) => t.totalBytesPerTx > 0)
    .sort((x, y) => y.totalBytesPerTx - x.totalBytesPerTx);
  return {
    databaseBytesPerTx: per(built.database - fresh.database),
    tablesBytesPerTx: per(grown.reduce((sum, t) => sum + t.totalBytesPerTx * txs, 0)),
    tables: grown,
  };
}

async function main() {
  const blocks = Number(args.blocks);
  const load1mBefore = loadavg()[0];
  const fresh = await createPostgresTestDb(baseUrl);
  const built = await createPostgresTestDb(baseUrl);
  try {
    const freshSizes = await sizes(fresh.db);
    const sim = await startBenchChain(vm, blocks, args.txs!);
    const started = performance.now();
    try {
      const service = await benchIngestService(sim, built.db, vm, {
        stages: { richList: true, nftIndexing: true, ...(vm === 'evm' ? { internalTx: true } : {}) },
      });
      await service.run({ signal: new AbortController().signal, untilHeight: blocks });
      await service.close();
    } finally {
      await sim.stop();
    }
    const ingestSeconds = Math.round((performance.now() - started) / 100) / 10;
    const { rows } = await built.db.query<{ txs: string }>(
      "SELECT tx_sequence AS txs FROM checkpoint WHERE stream = 'blocks'",
    );
    const txs = Number(rows[0]?.txs ?? 0);
    const out = {
      bench: 'bytes-per-tx',
      date: new Date().toISOString(),
      chain: { vm, blocks, txsPerBlock: args.txs, txs },
      ingestSeconds,
      ...report(await sizes(built.db), freshSizes, txs),
      ...(args.keep ? { keptDatabase: built.url } : {}),
      machine: { loadAvg1mBefore: load1mBefore, loadAvg1mAfter: loadavg()[0] },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await fresh.dispose();
    if (args.keep) await built.db.close();
    else await built.dispose();
  }
}

await main();
