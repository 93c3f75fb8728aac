/**
 * The route classes the scale bench loads, with fixtures drawn from the database at its current
 * size: single records (tx by hash, block by height), list first pages, deep cursor pages,
 * by_account on the busiest and on the quietest account, `msgs` filters, and `count_total=true`.
 */
import type { Db } from '../../src/store/driver/db.js';
import type { RouteSpec } from '../lib/http-load.js';

export interface RouteFixtures {
  txs: number;
  blocks: number;
  busy: { address: string; txs: number };
  quiet: { address: string; txs: number };
  /** The account that signed the most txs (the busiest one may sign none: a module account). */
  signer: { address: string; signed: number };
  /** Most and least frequent message types (by tx_msg_types edges), without the leading '/'. */
  commonMsg: { type: string; txs: number };
  rareMsg: { type: string; txs: number };
  hashes: string[];
  heights: number[];
  /** pagination.key of the tx list 90 % of the way back (desc order: a small sequence). */
  deepListKey: string;
  /** Same on the busiest account's list. */
  deepBusyKey: string;
}

const one = async <T>(db: Db, sql: string, params: unknown[] = []) =>
  (await db.query<T>(sql, params)).rows[0]!;
const key = (sequence: number) => Buffer.from(JSON.stringify({ sequence })).toString('base64');
const address = (bytes: Buffer) => `0x${bytes.toString('hex')}`;

export async function loadRouteFixtures(db: Db): Promise<RouteFixtures> {
  const { txs } = await one<{ txs: string }>(db, 'SELECT COALESCE(MAX(sequence), 0) AS txs FROM tx');
  const { blocks } = await one<{ blocks: string }>(
    db,
    'SELECT COALESCE(MAX(height), 0) AS blocks FROM block',
  );
  // Ingest's per-account counters: no edge scan, whatever the size.
  const account = (order: 'DESC' | 'ASC') =>
    one<{ id: string; account: Buffer; txs: string }>(
      db,
      `SELECT a.id, a.account, c.txs FROM tx_account_counts c JOIN account_dict a ON a.id = c.account_id
        WHERE c.txs > 0 ORDER BY c.txs ${order}, a.id LIMIT 1`,
    );
  const busy = await account('DESC');
  const quiet = await account('ASC');
  const signer = await one<{ account: Buffer; signed: string }>(
    db,
    `SELECT a.account, c.signed FROM tx_account_counts c JOIN account_dict a ON a.id = c.account_id
      ORDER BY c.signed DESC, a.id LIMIT 1`,
  );
  const { rows: types } = await db.query<{ msg_type: string; txs: string }>(
    `SELECT d.msg_type, (SELECT count(*) FROM tx_msg_types m WHERE m.msg_type_id = d.id) AS txs
       FROM msg_type_dict d ORDER BY 2 DESC, 1`,
  );
  const deepBusy = await one<{ sequence: string } | undefined>(
    db,
    'SELECT sequence FROM tx_accounts WHERE account_id = $1 ORDER BY sequence ASC OFFSET $2 LIMIT 1',
    [busy.id, Math.floor(Number(busy.txs) / 10)],
  );
  const hashes = (
    await db.query<{ h: string }>(
      `SELECT upper(encode(hash, 'hex')) AS h FROM tx
        WHERE sequence IN (SELECT (1 + floor(random() * $1))::int8 FROM generate_series(1, 1000))`,
      [txs],
    )
  ).rows.map((r) => r.h);
  const nBlocks = Number(blocks);
  const msg = (row: { msg_type: string; txs: string } | undefined) => ({
    type: row?.msg_type ?? '',
    txs: Number(row?.txs ?? 0),
  });
  return {
    txs: Number(txs),
    blocks: nBlocks,
    busy: { address: address(busy.account), txs: Number(busy.txs) },
    quiet: { address: address(quiet.account), txs: Number(quiet.txs) },
    signer: { address: address(signer.account), signed: Number(signer.signed) },
    commonMsg: msg(types[0]),
    rareMsg: msg(types.at(-1)),
    hashes,
    heights: Array.from({ length: 1000 }, () => 1 + Math.floor(Math.random() * nBlocks)),
    deepListKey: key(Math.max(1, Math.floor(Number(txs) / 10))),
    deepBusyKey: key(Number(deepBusy?.sequence ?? 1)),
  };
}

export function scaleRoutes(f: RouteFixtures): RouteSpec[] {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)] as T;
  const txs = '/indexer/tx/v1/txs';
  const busy = `${txs}/by_account/${f.busy.address}`;
  const quiet = `${txs}/by_account/${f.quiet.address}`;
  const signer = `${txs}/by_account/${f.signer.address}`;
  const noCount = 'pagination.count_total=false';
  const withCount = 'pagination.count_total=true';
  const deep = (k: string) => `pagination.key=${encodeURIComponent(k)}`;
  return [
    // single records
    { name: 'tx_by_hash', path: () => `${txs}/${pick(f.hashes)}`, kind: 'single' },
    { name: 'block_by_height', path: () => `/indexer/block/v1/blocks/${pick(f.heights)}`, kind: 'single' },
    // list first pages (100 items)
    { name: 'txs_first_page', path: `${txs}?pagination.limit=100&${noCount}`, kind: 'list' },
    { name: 'blocks_first_page', path: `/indexer/block/v1/blocks?pagination.limit=100`, kind: 'list' },
    { name: 'txs_by_height', path: () => `${txs}/by_height/${pick(f.heights)}?${noCount}`, kind: 'list' },
    // deep cursor pages
    {
      name: 'txs_deep_cursor',
      path: `${txs}?pagination.limit=100&${noCount}&${deep(f.deepListKey)}`,
      kind: 'list',
    },
    {
      name: 'busy_account_deep_cursor',
      path: `${busy}?pagination.limit=100&${noCount}&${deep(f.deepBusyKey)}`,
      kind: 'list',
    },
    // by_account
    { name: 'busy_account_first_page', path: `${busy}?pagination.limit=100&${noCount}`, kind: 'list' },
    { name: 'quiet_account_first_page', path: `${quiet}?pagination.limit=100&${noCount}`, kind: 'list' },
    {
      name: 'top_signer_is_signer',
      path: `${signer}?pagination.limit=100&${noCount}&is_signer=true`,
      kind: 'list',
    },
    // msgs filters
    {
      name: 'txs_msgs_common',
      path: `${txs}?pagination.limit=100&${noCount}&msgs=${f.commonMsg.type}`,
      kind: 'list',
    },
    {
      name: 'txs_msgs_rare',
      path: `${txs}?pagination.limit=100&${noCount}&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
    {
      name: 'busy_account_msgs_rare',
      path: `${busy}?pagination.limit=100&${noCount}&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
    {
      name: 'top_signer_is_signer_msgs_rare',
      path: `${signer}?pagination.limit=100&${noCount}&is_signer=true&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
    // count_total=true
    { name: 'txs_count_total', path: `${txs}?pagination.limit=100&${withCount}`, kind: 'list' },
    { name: 'busy_account_count_total', path: `${busy}?pagination.limit=100&${withCount}`, kind: 'list' },
    {
      name: 'txs_msgs_common_count_total',
      path: `${txs}?pagination.limit=100&${withCount}&msgs=${f.commonMsg.type}`,
      kind: 'list',
    },
    {
      // Two types: a tx holding both counts once (the per type-set counts, migration 0014).
      name: 'txs_msgs_common_rare_count_total',
      path: `${txs}?pagination.limit=100&${withCount}&msgs=${f.commonMsg.type}&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
    {
      name: 'busy_account_msgs_rare_count_total',
      path: `${busy}?pagination.limit=100&${withCount}&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
    {
      name: 'top_signer_is_signer_msgs_rare_count_total',
      path: `${signer}?pagination.limit=100&${withCount}&is_signer=true&msgs=${f.rareMsg.type}`,
      kind: 'list',
    },
  ];
}
