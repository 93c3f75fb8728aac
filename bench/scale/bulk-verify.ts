/**
 * `bench/scale/bulk.ts --verify-100k`: the same chain built through the real ingest service and by
 * the bulk builder into two fresh databases, then compared: bytes per table, route classes under
 * load (each class on both databases back to back, so host load weighs on both alike), the kept
 * counts against a recount, and a digest of every table's rows by content.
 *
 * Bytes are read twice: as built, and after `VACUUM FULL` of both. As built, the tables whose rows
 * the real ingest updates commit after commit (NFT owners, the kept counts) also hold the dead
 * versions those updates left, as many as the real build had commits (PostgreSQL on this host runs
 * without autovacuum), and the bulk build, which writes each row once per batch, holds fewer; its
 * indexes are built by sort. The bound is on the compacted bytes, where both hold only their rows
 * and freshly sorted indexes: what the data costs, not how it was written. Both are reported.
 */
import pg from 'pg';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { startApi, stopApi } from '../lib/http-load.js';
import { checkpointHeight, ensureDatabase, round, type IngestRun } from './build.js';
import type { BulkRun } from './bulk-build.js';
import { loadRouteWithCpu } from './route-load.js';
import { loadRouteFixtures, scaleRoutes } from './routes.js';
import { storageReport, type StorageReport } from './storage.js';

/** Bounds of issue 34. */
const BYTES_WITHIN = 0.1;
const ROUTE_WITHIN = 1.2;
/** Tables below this share of the real database's table bytes are listed, not bounded. */
const BOUNDED_SHARE = 0.01;

/**
 * `VACUUM (ANALYZE)` of the whole database, or with `full` `VACUUM (FULL, ANALYZE)`: every table
 * and index rewritten without dead rows. Returns the seconds it took.
 */
export async function vacuumAnalyze(url: string, full = false): Promise<number> {
  const started = performance.now();
  await withDb(url, (db) => db.exec(full ? 'VACUUM (FULL, ANALYZE)' : 'VACUUM (ANALYZE)'));
  return Math.round((performance.now() - started) / 1000);
}

async function recreate(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.end());
  return ensureDatabase(adminUrl, name);
}

async function drop(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.end());
}

/** The checkpoint height of an existing database (0 when there is none). */
async function builtHeight(adminUrl: string, name: string): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin
    .query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    .finally(() => admin.end());
  if (exists.rowCount !== 1) return 0;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return withDb(url.toString(), async (db) => (await checkpointHeight(db)).height).catch(() => 0);
}

/** Account and message-type ids differ between two builds (ids are drawn, not derived): compare by value. */
const acct = (col: string) => `(SELECT encode(a.account, 'hex') FROM account_dict a WHERE a.id = ${col})`;
const typeSet = (col: string) =>
  `(SELECT string_agg(d.msg_type, '+' ORDER BY d.msg_type) FROM msg_type_dict d WHERE d.id = ANY(${col}))`;
const nftKey = (col: string) =>
  `(SELECT encode(n.collection_addr, 'hex') || '/' || n.token_id FROM nft_dict n WHERE n.id = ${col})`;

/** Per table, the row text each build must agree on (everything but drawn ids). */
const DIGESTS: Record<string, string> = {
  chain_meta: "SELECT concat_ws('|', chain_id, vm_type) FROM chain_meta",
  checkpoint: `SELECT concat_ws('|', stream, height, encode(block_hash, 'hex'), tx_sequence, evm_sequence) FROM checkpoint`,
  block: `SELECT concat_ws('|', height, encode(hash, 'hex'), "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee) FROM block`,
  validator: `SELECT concat_ws('|', operator_address, moniker) FROM validator`,
  tx: `SELECT concat_ws('|', sequence, encode(hash, 'hex'), height, ${acct('signer_id')}, md5(data), md5(data_packed)) FROM tx`,
  undecoded_tx: `SELECT concat_ws('|', sequence, md5(raw)) FROM undecoded_tx`,
  tx_accounts: `SELECT concat_ws('|', ${acct('account_id')}, sequence, signer) FROM tx_accounts`,
  tx_account_counts: `SELECT concat_ws('|', ${acct('account_id')}, txs, signed) FROM tx_account_counts`,
  tx_msg_types: `SELECT concat_ws('|', (SELECT msg_type FROM msg_type_dict d WHERE d.id = msg_type_id), sequence) FROM tx_msg_types`,
  tx_account_msg_types: `SELECT concat_ws('|', ${acct('account_id')}, (SELECT msg_type FROM msg_type_dict d WHERE d.id = msg_type_id), sequence, signer) FROM tx_account_msg_types`,
  tx_msg_type_sets: `SELECT concat_ws('|', ${typeSet('type_ids')}, txs) FROM tx_msg_type_sets`,
  tx_account_msg_type_sets: `SELECT concat_ws('|', ${acct('account_id')}, ${typeSet('type_ids')}, txs, signed) FROM tx_account_msg_type_sets`,
  evm_tx: `SELECT concat_ws('|', sequence, encode(hash, 'hex'), height, ${acct('signer_id')}, md5(data)) FROM evm_tx`,
  evm_tx_accounts: `SELECT concat_ws('|', ${acct('account_id')}, sequence, signer) FROM evm_tx_accounts`,
  evm_tx_account_counts: `SELECT concat_ws('|', ${acct('account_id')}, txs, signed) FROM evm_tx_account_counts`,
  nft_collection: `SELECT concat_ws('|', encode(addr, 'hex'), height, "timestamp", name, origin_name, ${acct('creator_id')}, nft_count, name_key, origin_name_key) FROM nft_collection`,
  nft: `SELECT concat_ws('|', encode(collection_addr, 'hex'), token_id, encode(object_addr, 'hex'), ${acct('owner_id')}, uri, height, "timestamp") FROM nft`,
  nft_dict: `SELECT concat_ws('|', encode(collection_addr, 'hex'), token_id) FROM nft_dict`,
  nft_holding: `SELECT concat_ws('|', ${acct('owner_id')}, encode(collection_addr, 'hex'), nft_count) FROM nft_holding`,
  tx_nfts: `SELECT concat_ws('|', ${nftKey('nft_id')}, sequence) FROM tx_nfts`,
  nft_receipt: `SELECT concat_ws('|', height, sequence, ${nftKey('nft_id')}, ${acct('to_id')}, minted) FROM nft_receipt`,
  account_dict: `SELECT encode(account, 'hex') FROM account_dict`,
  msg_type_dict: 'SELECT msg_type FROM msg_type_dict',
};

async function digests(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, rows] of Object.entries(DIGESTS)) {
    const { rows: r } = await db.query<{ d: string | null; n: string }>(
      `SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS d, count(*) AS n FROM (${rows}) AS q(x)`,
    );
    out[table] = `${r[0]!.n}:${r[0]!.d ?? ''}`;
  }
  return out;
}

/** Each kept count or derived row set against the same figure recounted from the rows. */
const RECOUNTS: Record<string, string> = {
  tx_account_counts: `
    (SELECT account_id, txs, signed FROM tx_account_counts WHERE txs > 0)
    EXCEPT ALL (SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM tx_accounts GROUP BY 1)`,
  tx_account_counts_reverse: `
    (SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM tx_accounts GROUP BY 1)
    EXCEPT ALL (SELECT account_id, txs, signed FROM tx_account_counts)`,
  evm_tx_account_counts: `
    (SELECT account_id, txs, signed FROM evm_tx_account_counts WHERE txs > 0)
    EXCEPT ALL (SELECT account_id, count(*), count(*) FILTER (WHERE signer) FROM evm_tx_accounts GROUP BY 1)`,
  tx_msg_type_sets: `
    WITH sets AS (SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids FROM tx_msg_types GROUP BY 1)
    ((SELECT type_ids, txs FROM tx_msg_type_sets WHERE txs > 0) EXCEPT ALL (SELECT type_ids, count(*) FROM sets GROUP BY 1))
    UNION ALL
    ((SELECT type_ids, count(*) FROM sets GROUP BY 1) EXCEPT ALL (SELECT type_ids, txs FROM tx_msg_type_sets))`,
  tx_account_msg_type_sets: `
    WITH sets AS (SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids FROM tx_msg_types GROUP BY 1),
    recount AS (SELECT e.account_id, s.type_ids, count(*) AS txs, count(*) FILTER (WHERE e.signer) AS signed
                  FROM tx_accounts e JOIN sets s USING (sequence) GROUP BY 1, 2)
    ((SELECT account_id, type_ids, txs, signed FROM tx_account_msg_type_sets WHERE txs > 0) EXCEPT ALL (SELECT * FROM recount))
    UNION ALL ((SELECT * FROM recount) EXCEPT ALL (SELECT account_id, type_ids, txs, signed FROM tx_account_msg_type_sets))`,
  nft_collection_count: `
    SELECT c.addr FROM nft_collection c
     WHERE c.nft_count <> (SELECT count(*) FROM nft n WHERE n.collection_addr = c.addr)`,
  nft_holding: `
    ((SELECT owner_id, collection_addr, nft_count FROM nft_holding)
      EXCEPT ALL (SELECT owner_id, collection_addr, count(*) FROM nft GROUP BY 1, 2))
    UNION ALL ((SELECT owner_id, collection_addr, count(*) FROM nft GROUP BY 1, 2)
      EXCEPT ALL (SELECT owner_id, collection_addr, nft_count FROM nft_holding))`,
  block_tx_count: `SELECT height FROM block b WHERE b.tx_count <> (SELECT count(*) FROM tx t WHERE t.height = b.height)`,
  checkpoint: `
    SELECT c.height FROM checkpoint c WHERE c.stream = 'blocks' AND (
      c.height <> (SELECT max(height) FROM block)
      OR c.block_hash <> (SELECT hash FROM block WHERE height = c.height)
      OR c.tx_sequence <> (SELECT count(*) FROM tx) OR c.tx_sequence <> (SELECT COALESCE(max(sequence), 0) FROM tx)
      OR c.evm_sequence <> (SELECT count(*) FROM evm_tx))`,
  tx_per_account_msg_type: `
    ((SELECT account_id, msg_type_id, sequence, signer FROM tx_account_msg_types)
      EXCEPT ALL (SELECT e.account_id, m.msg_type_id, e.sequence, e.signer FROM tx_accounts e JOIN tx_msg_types m USING (sequence)))
    UNION ALL ((SELECT e.account_id, m.msg_type_id, e.sequence, e.signer FROM tx_accounts e JOIN tx_msg_types m USING (sequence))
      EXCEPT ALL (SELECT account_id, msg_type_id, sequence, signer FROM tx_account_msg_types))`,
};

/** Rows that disagree with their recount, per check (all 0 when the kept counts are right). */
async function recounts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, sql] of Object.entries(RECOUNTS)) {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM (${sql}) AS q`);
    out[name] = Number(rows[0]!.n);
  }
  return out;
}

function compareBytes(real: StorageReport, bulk: StorageReport) {
  const bulkOf = new Map(bulk.tables.map((t) => [t.table, t]));
  return real.tables.map((t) => {
    const b = bulkOf.get(t.table);
    const ratio = b ? round(b.totalBytesPerTx / Math.max(t.totalBytesPerTx, 0.1)) : 0;
    const bounded = t.totalBytesPerTx >= BOUNDED_SHARE * real.tablesBytesPerTx;
    return {
      table: t.table,
      realBytesPerTx: t.totalBytesPerTx,
      bulkBytesPerTx: b?.totalBytesPerTx ?? 0,
      ratio,
      bounded,
      ok: !bounded || Math.abs(ratio - 1) <= BYTES_WITHIN,
    };
  });
}

async function withDb<T>(url: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

type RouteRun = Awaited<ReturnType<typeof loadRouteWithCpu>>;

async function routesBothWays(
  o: { seconds: number; connections: number; port: number; log: (m: string) => void },
  urls: { real: string; bulk: string },
) {
  const fixtures = {
    real: await withDb(urls.real, loadRouteFixtures),
    bulk: await withDb(urls.bulk, loadRouteFixtures),
  };
  const apis = {
    real: await startApi(urls.real, false, o.port),
    bulk: await startApi(urls.bulk, false, o.port + 1),
  };
  try {
    const bulkSpecs = new Map(scaleRoutes(fixtures.bulk).map((s) => [s.name, s]));
    const out = [];
    for (const spec of scaleRoutes(fixtures.real)) {
      o.log(`route ${spec.name} ...`);
      const load = (way: 'real' | 'bulk') =>
        loadRouteWithCpu({
          url: urls[way],
          api: apis[way],
          port: way === 'real' ? o.port : o.port + 1,
          spec: way === 'real' ? spec : bulkSpecs.get(spec.name)!,
          seconds: o.seconds,
          connections: o.connections,
        });
      // real, bulk, bulk, real: each side's better run (the one the host disturbed least).
      const runs = { real: [await load('real')], bulk: [await load('bulk')] };
      runs.bulk.push(await load('bulk'));
      runs.real.push(await load('real'));
      const side = (way: 'real' | 'bulk') => {
        const [a, b] = runs[way] as [RouteRun, RouteRun];
        const best = (k: 'p50Ms' | 'p99Ms') => Math.min(a[k], b[k]);
        const cpu = (r: RouteRun) => r.apiCpuMsPerRequest + r.dbCpuMsPerRequest;
        return {
          p50Ms: best('p50Ms'),
          p99Ms: best('p99Ms'),
          reqPerSec: Math.max(a.reqPerSec, b.reqPerSec),
          cpuMsPerRequest: round(Math.min(cpu(a), cpu(b))),
          errors: a.errors + a.non2xx + b.errors + b.non2xx,
        };
      };
      const real = side('real');
      const bulk = side('bulk');
      const within = (a: number, b: number) =>
        Math.max(a, b) / Math.max(Math.min(a, b), 0.01) <= ROUTE_WITHIN;
      out.push({
        route: spec.name,
        real,
        bulk,
        ok:
          within(real.p50Ms, bulk.p50Ms) && within(real.p99Ms, bulk.p99Ms) && real.errors + bulk.errors === 0,
        cpuWithin1_2x: within(real.cpuMsPerRequest, bulk.cpuMsPerRequest),
      });
    }
    return out;
  } finally {
    await stopApi(apis.real);
    await stopApi(apis.bulk);
  }
}

export async function verifyBothWays(o: {
  adminUrl: string;
  /** The two databases are `<dbName>_real` and `<dbName>_copy`. */
  dbName: string;
  toHeight: number;
  seconds: number;
  connections: number;
  port: number;
  keep: boolean;
  reuseReal: boolean;
  log: (message: string) => void;
  real: (url: string, toHeight: number) => Promise<IngestRun>;
  bulk: (url: string, toHeight: number) => Promise<BulkRun>;
}) {
  const names = { real: `${o.dbName}_real`, bulk: `${o.dbName}_copy` };
  const loadBefore = (await import('node:os')).loadavg();
  try {
    // --reuse-real: a real build kept (--keep) at this height is not built again.
    const kept = o.reuseReal ? await builtHeight(o.adminUrl, names.real) : 0;
    const urls = {
      real:
        kept === o.toHeight
          ? await ensureDatabase(o.adminUrl, names.real)
          : await recreate(o.adminUrl, names.real),
      bulk: await recreate(o.adminUrl, names.bulk),
    };
    let realRun: IngestRun | 'reused' = 'reused';
    let realVacuum = 0;
    if (kept !== o.toHeight) {
      o.log(`real ingest to height ${o.toHeight} ...`);
      realRun = await o.real(urls.real, o.toHeight);
      realVacuum = await vacuumAnalyze(urls.real);
    }
    o.log(`bulk build to height ${o.toHeight} ...`);
    const bulkRun = await o.bulk(urls.bulk, o.toHeight);
    const bulkVacuum = await vacuumAnalyze(urls.bulk);
    const measure = async (url: string) =>
      withDb(url, async (db) => {
        const txs = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tx')).rows[0]!.n);
        return {
          storage: await storageReport(db, txs),
          recount: await recounts(db),
          digest: await digests(db),
        };
      });
    o.log('storage, recounts, digests ...');
    const real = await measure(urls.real);
    const bulk = await measure(urls.bulk);
    const bytes = compareBytes(real.storage, bulk.storage);
    const digestDiffers = Object.keys(real.digest).filter((t) => real.digest[t] !== bulk.digest[t]);
    const badRecounts = (r: Record<string, number>) => Object.keys(r).filter((k) => r[k] !== 0);
    const routes = await routesBothWays(o, urls);
    o.log('VACUUM FULL of both, storage again ...');
    const vacuumFullSeconds = {
      real: await vacuumAnalyze(urls.real, true),
      bulk: await vacuumAnalyze(urls.bulk, true),
    };
    const compacted = compareBytes(
      await withDb(urls.real, (db) => storageReport(db, real.storage.txs)),
      await withDb(urls.bulk, (db) => storageReport(db, bulk.storage.txs)),
    );
    const checks = {
      compactedBytesWithin10Percent: compacted.every((b) => b.ok),
      routesWithin1_2x: routes.every((r) => r.ok),
      recountsEqual: badRecounts(real.recount).length === 0 && badRecounts(bulk.recount).length === 0,
      rowsIdentical: digestDiffers.length === 0,
    };
    // Not a bound of the issue: CPU per request moves far less with host load than latency does.
    const routeCpuWithin1_2x = routes.every((r) => r.cpuWithin1_2x);
    return {
      bench: 'scale-bulk-verify',
      date: new Date().toISOString(),
      blocks: o.toHeight,
      txs: real.storage.txs,
      pass: Object.values(checks).every(Boolean),
      checks,
      routeCpuWithin1_2x,
      build: {
        real: realRun === 'reused' ? realRun : { ...realRun, vacuumSeconds: realVacuum },
        bulk: { ...bulkRun, vacuumSeconds: bulkVacuum },
      },
      databaseBytesPerTx: { real: real.storage.databaseBytesPerTx, bulk: bulk.storage.databaseBytesPerTx },
      tablesBytesPerTx: { real: real.storage.tablesBytesPerTx, bulk: bulk.storage.tablesBytesPerTx },
      bytesPerTable: { compacted, asBuilt: bytes, asBuiltWithin10Percent: bytes.every((b) => b.ok) },
      vacuumFullSeconds,
      recountMismatches: { real: badRecounts(real.recount), bulk: badRecounts(bulk.recount) },
      rowDigests: {
        tables: Object.keys(real.digest).length,
        differ: digestDiffers,
        real: real.digest,
        bulk: bulk.digest,
      },
      routes,
      machine: { loadAvgBefore: loadBefore, loadAvgAfter: (await import('node:os')).loadavg() },
      databasesKept: o.keep ? Object.values(names) : [],
    };
  } finally {
    if (!o.keep) {
      await drop(o.adminUrl, names.real);
      await drop(o.adminUrl, names.bulk);
    }
  }
}
