/**
 * Where the bytes of a scale database go: every table's heap, TOAST and indexes, and each index,
 * per stored Cosmos tx. Read from PostgreSQL's own size functions (pages on disk, free space
 * included), so they are what an operator pays for.
 */
import type { Db } from '../../src/store/driver/db.js';

export interface TableBytes {
  table: string;
  rows: number;
  heapBytesPerTx: number;
  toastBytesPerTx: number;
  indexBytesPerTx: number;
  totalBytesPerTx: number;
  indexes: { index: string; bytesPerTx: number; definition: string }[];
}

export interface StorageReport {
  txs: number;
  databaseBytes: number;
  databaseBytesPerTx: number;
  /** Sum of every table's total (heap + TOAST + indexes). */
  tablesBytesPerTx: number;
  tables: TableBytes[];
}

/** Tables holding at least this share of the tables' bytes are listed with their indexes. */
const LISTED_SHARE = 0.001;

export async function storageReport(db: Db, txs: number): Promise<StorageReport> {
  const per = (bytes: number | string) => Math.round((Number(bytes) / Math.max(txs, 1)) * 10) / 10;
  const { rows: tables } = await db.query<{
    table: string;
    rows: string;
    heap: string;
    toast: string;
    idx: string;
    total: string;
  }>(
    `SELECT c.relname AS table, c.reltuples::int8 AS rows,
            pg_relation_size(c.oid) + pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS heap,
            COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0) AS toast,
            pg_indexes_size(c.oid) AS idx, pg_total_relation_size(c.oid) AS total
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'
      ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  const { rows: indexes } = await db.query<{ table: string; index: string; bytes: string; def: string }>(
    `SELECT t.relname AS table, i.relname AS index, pg_relation_size(i.oid) AS bytes,
            pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' ORDER BY pg_relation_size(i.oid) DESC`,
  );
  const { rows: dbRows } = await db.query<{ bytes: string }>(
    'SELECT pg_database_size(current_database()) AS bytes',
  );
  const allTables = tables.reduce((sum, t) => sum + Number(t.total), 0);
  const listed = tables.filter((t) => Number(t.total) >= LISTED_SHARE * allTables);
  return {
    txs,
    databaseBytes: Number(dbRows[0]?.bytes ?? 0),
    databaseBytesPerTx: per(dbRows[0]?.bytes ?? 0),
    tablesBytesPerTx: per(allTables),
    tables: listed.map((t) => ({
      table: t.table,
      rows: Number(t.rows),
      heapBytesPerTx: per(t.heap),
      toastBytesPerTx: per(t.toast),
      indexBytesPerTx: per(t.idx),
      totalBytesPerTx: per(t.total),
      indexes: indexes
        .filter((i) => i.table === t.table)
        .map((i) => ({ index: i.index, bytesPerTx: per(i.bytes), definition: i.def })),
    })),
  };
}

/** Average stored (possibly compressed) and raw size of tx.data over a sample, and its compression. */
export async function txDataSample(db: Db, txs: number): Promise<Record<string, number | string>> {
  const { rows } = await db.query<{ stored: string; raw: string; method: string | null }>(
    `SELECT avg(pg_column_size(data))::int AS stored, avg(octet_length(data))::int AS raw,
            mode() WITHIN GROUP (ORDER BY pg_column_compression(data)) AS method
       FROM tx WHERE sequence IN (SELECT (1 + floor(random() * $1))::int8 FROM generate_series(1, 2000))`,
    [txs],
  );
  const r = rows[0];
  return {
    storedBytes: Number(r?.stored ?? 0),
    rawBytes: Number(r?.raw ?? 0),
    compression: r?.method ?? 'none',
  };
}

/**
 * tx.data of a random sample, stored once per compression method (`data || ''` makes PostgreSQL
 * compress it again rather than copy the stored datum): bytes per row, and the server time to
 * decompress the whole sample (length() needs the text; best of 5).
 */
export async function compressionSample(db: Db, txs: number, rows = 2000) {
  const methods = ['pglz', 'lz4'];
  const out: Record<string, { storedBytesPerRow: number; decompressMsPer1000Rows: number }> = {};
  await db.transaction(async (tx) => {
    await tx.query(
      `CREATE TEMP TABLE scale_sample ON COMMIT DROP AS
         SELECT data || '' AS data FROM tx
          WHERE sequence IN (SELECT (1 + floor(random() * $1))::int8 FROM generate_series(1, $2))`,
      [txs, rows],
    );
    for (const method of methods) {
      const table = `scale_sample_${method}`;
      await tx.query(`CREATE TEMP TABLE ${table} (data text COMPRESSION ${method}) ON COMMIT DROP`);
      await tx.query(`INSERT INTO ${table} SELECT data || '' FROM scale_sample`);
      const { rows: size } = await tx.query<{ bytes: string; n: string }>(
        `SELECT sum(pg_column_size(data)) AS bytes, count(*) AS n FROM ${table}`,
      );
      const n = Number(size[0]?.n ?? 0);
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await tx.query(`SELECT sum(length(data)) FROM ${table}`);
        best = Math.min(best, performance.now() - started);
      }
      out[method] = {
        storedBytesPerRow: Math.round(Number(size[0]?.bytes ?? 0) / Math.max(n, 1)),
        decompressMsPer1000Rows: Math.round((best / Math.max(n, 1)) * 1000 * 100) / 100,
      };
    }
  });
  return out;
}

/** The big B-trees whose pages ingest fills in key order (not at the right edge) and splits. */
const DENSITY_INDEXES = ['tx_account_msg_types_pkey', 'tx_accounts_pkey', 'tx_pkey', 'tx_height_idx'];

/**
 * Leaf density (share of each leaf page holding entries) of the big B-trees, from pgstattuple when
 * the server has it (contrib): what a REINDEX would give back. Empty when it is not installed.
 */
export async function indexDensity(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  try {
    await db.exec('CREATE EXTENSION IF NOT EXISTS pgstattuple');
  } catch {
    return out;
  }
  for (const index of DENSITY_INDEXES) {
    const { rows } = await db.query<{ d: number }>('SELECT avg_leaf_density AS d FROM pgstatindex($1)', [
      index,
    ]);
    if (rows[0]) out[index] = Number(rows[0].d);
  }
  return out;
}
