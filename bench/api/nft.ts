/**
 * NFT read-API benchmark (issue 10): wrk or autocannon against `rollup-indexer api` (child process,
 * cache off) on PostgreSQL, JSON results on stdout.
 *
 *   npm run bench:nft-api -- [--admin-url postgres://…/postgres] [--reseed] [--duration 10] [--connections 50]
 *                            [--nft-writes-per-second 10]
 *
 * The dataset is written by SQL straight into the real schema (migrations/*.sql), not ingested:
 * one owner with 100,000 NFTs across 50 collections (2,000 each), 10,000 collections in all
 * (for /collections/by_name), and one token with a 300-tx history: its tx_nfts edges, and (the
 * chain is Move, where a token's history is its object's account history, docs/api.md §0.10) the
 * object's account with the same 300 tx_accounts edges. Database ri_bench_nft is created once and
 * reused (--reseed rebuilds it); the object's edges are added to a database seeded without them.
 *
 * The API holds NFT answers while the NFT tables are unchanged (docs/api.md §1.9.1); on this
 * static dataset every page after the first is a hit. `--nft-writes-per-second N` commits N NFT
 * writes a second during the runs (a transfer of a token outside every measured page, to another
 * owner and back), as a busy chain's blocks would: each moves the tables' version, so every page
 * is read from the database again after it.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { toBech32 } from '../../src/shared/address.js';
import { createPostgresDb, type Db } from '../../src/store/driver/db.js';
import { prepareBenchDatabase } from '../lib/harness.js';
import { runRoutes, WARMUP_SECONDS, type RouteSpec } from '../lib/http-load.js';

const { values: args } = parseArgs({
  options: {
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    reseed: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    port: { type: 'string', default: '18090' },
    routes: { type: 'string' },
    'nft-writes-per-second': { type: 'string', default: '0' },
  },
});
const log = (message: string) => process.stderr.write(`[bench:nft-api] ${message}\n`);

const DB_NAME = 'ri_bench_nft';
const COLLECTIONS = 10_000;
const OWNED_COLLECTIONS = 50;
const TOKENS = 100_000;
const HISTORY_TXS = 300;
/** 32-byte addresses from a number: md5 twice. */
const addrSql = (expr: string) => `decode(md5((${expr})::text) || md5('c' || (${expr})::text), 'hex')`;

const prepareDatabase = () =>
  prepareBenchDatabase({
    adminUrl: args['admin-url'] ?? '',
    name: DB_NAME,
    reseed: args.reseed ?? false,
    isSeeded: async (db) =>
      Number((await db.query<{ n: number }>('SELECT count(*) AS n FROM nft')).rows[0]?.n) >= TOKENS,
    seed,
  });

async function seed(db: Db): Promise<void> {
  log('seeding by SQL ...');
  const tokensPer = TOKENS / OWNED_COLLECTIONS;
  const statements = [
    `INSERT INTO chain_meta (chain_id, vm_type) VALUES ('bench-nft-1', 'move')`,
    // Account 1 owns everything; 2..101 are creators.
    `INSERT INTO account_dict (account) SELECT decode(lpad(to_hex(i), 40, '0'), 'hex') FROM generate_series(1, 101) i`,
    `INSERT INTO nft_collection (addr, height, "timestamp", name, creator_id, nft_count, name_key)
       SELECT ${addrSql('i')}, i, timestamp '2026-01-01' + i * interval '1 second', 'Bench Collection ' || i,
              2 + i % 100, CASE WHEN i <= ${OWNED_COLLECTIONS} THEN ${tokensPer} ELSE 0 END, 'benchcollection' || i
       FROM generate_series(1, ${COLLECTIONS}) i`,
    `INSERT INTO nft_dict (collection_addr, token_id)
       SELECT ${addrSql('1 + (i - 1) % ' + OWNED_COLLECTIONS)}, ((i - 1) / ${OWNED_COLLECTIONS} + 1)::text
       FROM generate_series(1, ${TOKENS}) i`,
    `INSERT INTO nft (nft_id, collection_addr, token_id, object_addr, owner_id, uri, height, "timestamp")
       SELECT id, collection_addr, token_id, decode(md5('o' || id) || md5('p' || id), 'hex'), 1,
              'ipfs://bafybench/' || token_id || '.json', 20000 + (id * 7919) % 50000,
              timestamp '2026-01-01' + id * interval '1 second'
       FROM nft_dict`,
    `INSERT INTO nft_holding (owner_id, collection_addr, nft_count)
       SELECT 1, collection_addr, count(*) FROM nft GROUP BY collection_addr`,
    `INSERT INTO tx (sequence, hash, height, signer_id, data)
       SELECT s, decode(md5('tx' || s) || md5('ty' || s), 'hex'), s, 1,
              '{"txhash":"' || upper(md5('tx' || s)) || '","height":"' || s || '","events":[' ||
              repeat('{"type":"transfer","attributes":[{"key":"recipient","value":"init1abc","index":true}]},', 8) ||
              '{"type":"message","attributes":[]}]}'
       FROM generate_series(1, ${HISTORY_TXS}) s`,
    `INSERT INTO tx_nfts (nft_id, sequence) SELECT 1, s FROM generate_series(1, ${HISTORY_TXS}) s`,
    'ANALYZE',
  ];
  for (const sql of statements) await db.query(sql);
}

/**
 * The Move history of token 1: its object address as an account (32 bytes: an md5 address has no
 * 12 leading zero bytes to drop, docs/api.md §2.6) named by the 300 txs. Idempotent.
 */
async function seedObjectHistory(url: string): Promise<void> {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    const statements = [
      `INSERT INTO account_dict (account) SELECT object_addr FROM nft WHERE nft_id = 1 ON CONFLICT DO NOTHING`,
      `INSERT INTO tx_accounts (account_id, sequence, signer)
         SELECT d.id, s, false FROM account_dict d JOIN nft n ON n.object_addr = d.account AND n.nft_id = 1,
                generate_series(1, ${HISTORY_TXS}) s
         ON CONFLICT DO NOTHING`,
      `INSERT INTO tx_account_counts (account_id, txs, signed)
         SELECT account_id, count(*), 0 FROM tx_accounts
          WHERE account_id = (SELECT d.id FROM account_dict d JOIN nft n ON n.object_addr = d.account AND n.nft_id = 1)
          GROUP BY account_id
         ON CONFLICT (account_id) DO UPDATE SET txs = EXCLUDED.txs`,
    ];
    for (const sql of statements) await db.query(sql);
  } finally {
    await db.close();
  }
}

/**
 * NFT writes at a steady rate until stopped: the last token of the last owned collection moves
 * between owners 1 and 2 (a real change of a live row; the measured pages never show it: it is
 * past their first 100 rows and owner 2 is not measured). Returns the stop function.
 */
function startNftWrites(url: string, perSecond: number): () => Promise<number> {
  if (perSecond <= 0) return async () => 0;
  const db = createPostgresDb({ url, maxConnections: 1 });
  let writes = 0;
  let writing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    writing = writing.then(() =>
      db
        .query(
          `UPDATE nft SET owner_id = 3 - owner_id
            WHERE nft_id = (SELECT max(nft_id) FROM nft WHERE owner_id IN (1, 2))`,
        )
        .then(() => (writes += 1)),
    );
  }, 1000 / perSecond);
  return async () => {
    clearInterval(timer);
    await writing;
    // Leave the dataset as seeded.
    await db.query('UPDATE nft SET owner_id = 1 WHERE owner_id = 2');
    await db.close();
    return writes;
  };
}

interface Fixtures {
  owner: string;
  collection: string;
  deepKey: string;
  tokenPath: string;
}

async function loadFixtures(url: string): Promise<Fixtures> {
  const db = createPostgresDb({ url, maxConnections: 1 });
  try {
    const owner = await db.query<{ account: Buffer }>('SELECT account FROM account_dict WHERE id = 1');
    // Row 50,001 of the owner's default order (token_id DESC, height DESC, collection DESC):
    // the cursor a client holds after 500 pages of 100.
    const deep = await db.query<{ token_id: string; height: number; addr: string }>(
      `SELECT token_id, height, encode(collection_addr, 'hex') AS addr FROM nft WHERE owner_id = 1
       ORDER BY token_id DESC, height DESC, collection_addr DESC OFFSET 49999 LIMIT 1`,
    );
    const row = deep.rows[0]!;
    const cursor = { collection_addr: `0x${row.addr}`, height: row.height, token_id: row.token_id };
    const token = await db.query<{ addr: string; token_id: string }>(
      `SELECT encode(collection_addr, 'hex') AS addr, token_id FROM nft WHERE nft_id = 1`,
    );
    return {
      owner: toBech32(owner.rows[0]!.account, 'init'),
      collection: `0x${token.rows[0]!.addr}`,
      deepKey: encodeURIComponent(Buffer.from(JSON.stringify(cursor)).toString('base64')),
      tokenPath: `0x${token.rows[0]!.addr}/${token.rows[0]!.token_id}`,
    };
  } finally {
    await db.close();
  }
}

function routes(f: Fixtures): RouteSpec[] {
  const nft = '/indexer/nft/v1';
  return [
    {
      name: 'tokens_by_account_first_page',
      path: `${nft}/tokens/by_account/${f.owner}?pagination.limit=100`,
      kind: 'list',
    },
    {
      name: 'tokens_by_account_500_pages_deep',
      path: `${nft}/tokens/by_account/${f.owner}?pagination.limit=100&pagination.key=${f.deepKey}`,
      kind: 'list',
    },
    { name: 'collections_by_account', path: `${nft}/collections/by_account/${f.owner}`, kind: 'list' },
    {
      name: 'tokens_by_collection_height',
      path: `${nft}/tokens/by_collection/${f.collection}?order_by=height&pagination.limit=100`,
      kind: 'list',
    },
    {
      name: 'tokens_by_collection_token_id',
      path: `${nft}/tokens/by_collection/${f.collection}?order_by=token_id&pagination.limit=100`,
      kind: 'list',
    },
    // "Collection 123" matches 11 of the 10,000 (123, 1230..1239).
    { name: 'collections_by_name_10k', path: `${nft}/collections/by_name/Collection123`, kind: 'list' },
    { name: 'nft_txs_history', path: `${nft}/txs/${f.tokenPath}?pagination.limit=100`, kind: 'list' },
  ];
}

async function main(): Promise<void> {
  const url = await prepareDatabase();
  await seedObjectHistory(url);
  const fixtures = await loadFixtures(url);
  const seconds = Number(args.duration);
  const connections = Number(args.connections);
  const port = Number(args.port);
  const only = args.routes?.split(',');
  const specs = routes(fixtures).filter((r) => !only || only.includes(r.name));
  const loadBefore = loadavg()[0] ?? 0;
  const writesPerSecond = Number(args['nft-writes-per-second']);
  const stopWrites = startNftWrites(url, writesPerSecond);
  // The ceiling is taken at the size of a 100-token page, the pages the target is about.
  const { results, ceiling } = await runRoutes(url, specs, {
    port,
    seconds,
    connections,
    log,
    ceilingRoute: 'tokens_by_account_first_page',
  });
  const nftWrites = await stopWrites();
  const byName = (name: string) => results.find((r) => r.route === name);
  const first = byName('tokens_by_account_first_page');
  const deep = byName('tokens_by_account_500_pages_deep');
  const tokenPages = results.filter((r) => r.route.startsWith('tokens_'));
  const output = {
    bench: 'nft-api',
    date: new Date().toISOString(),
    database: `PostgreSQL ${DB_NAME}, seeded by SQL into the real schema (not ingested)`,
    dataset: {
      collections: COLLECTIONS,
      ownerTokens: TOKENS,
      ownerCollections: OWNED_COLLECTIONS,
      historyTxs: HISTORY_TXS,
    },
    settings: {
      connections,
      durationSeconds: seconds,
      warmupSeconds: WARMUP_SECONDS,
      cache: 'off',
      nftWritesPerSecond: writesPerSecond,
      nftWrites,
    },
    // Client, API and PostgreSQL share these cores (and with anything else running).
    machine: { cpus: cpus().length, loadAvg1mBefore: loadBefore, loadAvg1mAfter: loadavg()[0] ?? 0 },
    results,
    ceiling,
    targets: {
      tokenPagesP99Under50ms: tokenPages.length ? tokenPages.every((r) => r.p99Ms < 50) : null,
      deepPageWithin1_5xFirst: first && deep ? deep.p99Ms <= 1.5 * first.p99Ms : null,
      errorsOrNon2xx: results.some((r) => r.errors > 0 || r.non2xx > 0),
    },
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
