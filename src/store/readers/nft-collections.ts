import type { NftCollectionValue } from '../../wire/nft-collection.js';
import { checkOffset, limitSql } from '../pagination.js';
import { countWithTimeout, plainCount, ridingTotal, runOffsetScan, type ReaderContext } from './context.js';

/**
 * NFT collections (migrations/20261124_0003_nft.sql, docs/api.md §4.6.1–4.6.4). Every list is
 * ordered by (height, addr): the address makes the order total, so offset pages and the
 * `{"height":N,"object_addr":"0x…"}` cursors this reader hands out never skip or repeat a row.
 */
export type CollectionRow = NftCollectionValue;

/** Where a collection page starts: after a keyset position, or at an offset. */
export interface CollectionPlan {
  limit: number;
  offset: number;
  desc: boolean;
  /** `{"height":N}`: rows strictly past height N (the reference's rule: same-height rows skipped). */
  heightBelow?: number;
  /** `{"height":N,"object_addr":…}`: rows strictly past (N, addr) in list order. */
  after?: { height: number; addr: Buffer };
}

export interface CollectionPage {
  rows: CollectionRow[];
  hasMore: boolean;
  total: string;
}

export interface NftCollectionReader {
  list(plan: CollectionPlan, countTotal: boolean): Promise<CollectionPage>;
  /** Collections in which the account owns at least one live NFT. */
  byAccount(plan: CollectionPlan, ownerId: number, countTotal: boolean): Promise<CollectionPage>;
  /** Name or origin name (normalised keys) containing `nameKey`; offset paging only. */
  byName(plan: CollectionPlan, nameKey: string): Promise<CollectionPage>;
  byAddr(addr: Uint8Array): Promise<CollectionRow | undefined>;
}

export const COLLECTION_COLUMNS =
  `encode(c.addr, 'hex') AS addr, c.height, ` +
  `to_char(c."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS ts, c.name, ` +
  `c.origin_name AS "originName", cr.account AS creator, c.nft_count AS "nftCount"`;
const CREATOR_JOIN = 'LEFT JOIN account_dict cr ON cr.id = c.creator_id';

/** Keyset condition and ORDER/LIMIT/OFFSET tail over (c.height, c.addr); params appended. */
function collectionOrder(plan: CollectionPlan, params: unknown[], maxOffset: number | undefined) {
  const dir = plan.desc ? 'DESC' : 'ASC';
  const cmp = plan.desc ? '<' : '>';
  let where = '';
  if (plan.after) {
    params.push(plan.after.height, plan.after.addr);
    where = ` AND (c.height, c.addr) ${cmp} ($${params.length - 1}::bigint, $${params.length}::bytea)`;
  } else if (plan.heightBelow !== undefined) {
    params.push(plan.heightBelow);
    where = ` AND c.height ${cmp} $${params.length}::bigint`;
  }
  const offsetScan = plan.after === undefined && plan.offset > 0;
  if (offsetScan && maxOffset !== Infinity) checkOffset(plan.offset, maxOffset);
  const limits = limitSql(plan.limit, offsetScan ? plan.offset : 0, params);
  const tail = ` ORDER BY c.height ${dir}, c.addr ${dir}${limits}`;
  return { where, tail, offsetScan };
}

function toPage(rows: CollectionRow[], limit: number, total: string): CollectionPage {
  return rows.length > limit
    ? { rows: rows.slice(0, limit), hasMore: true, total }
    : { rows, hasMore: false, total };
}

export function createNftCollectionReader(ctx: ReaderContext): NftCollectionReader {
  const select = async (sql: string, params: unknown[], offsetScan: boolean) =>
    (await runOffsetScan(ctx, offsetScan, () => ctx.db.query<CollectionRow>(sql, params))).rows;

  return {
    async list(plan, countTotal) {
      const params: unknown[] = [];
      const { where, tail, offsetScan } = collectionOrder(plan, params, ctx.maxOffset);
      const [rows, total] = await Promise.all([
        select(
          `SELECT ${COLLECTION_COLUMNS} FROM nft_collection c ${CREATOR_JOIN} WHERE true${where}${tail}`,
          params,
          offsetScan,
        ),
        // An exact count under the count timeout, not the reference's planner estimate ("-1" on a
        // never-analysed table): the total then means what the walk finds.
        countTotal ? countWithTimeout(ctx, 'SELECT count(*) AS n FROM nft_collection', []) : '0',
      ]);
      return toPage(rows, plan.limit, total);
    },

    async byAccount(plan, ownerId, countTotal) {
      const params: unknown[] = [ownerId];
      const { where, tail, offsetScan } = collectionOrder(plan, params, ctx.maxOffset);
      // nft_holding holds one row per (owner, collection) with live tokens: an owner of 100,000
      // NFTs in 50 collections reads 50 rows, never its tokens.
      // The fenced LATERAL (OFFSET 0) keeps that plan: one key look-up per holding, never a
      // scan of every collection, however the planner sizes the tables.
      const holding =
        'FROM nft_holding h CROSS JOIN LATERAL ' +
        '(SELECT * FROM nft_collection c WHERE c.addr = h.collection_addr OFFSET 0) c';
      const from = `${holding} ${CREATOR_JOIN} WHERE h.owner_id = $1`;
      const count = `(SELECT count(*) ${holding} WHERE h.owner_id = $1)`;
      const rows = await select(
        `SELECT ${COLLECTION_COLUMNS}${countTotal ? `, ${count} AS total` : ''} ${from}${where}${tail}`,
        params,
        offsetScan,
      );
      const total = countTotal ? await ridingTotal(ctx, rows, count, [ownerId]) : '0';
      return toPage(rows, plan.limit, total);
    },

    async byName(plan, nameKey) {
      const filter =
        nameKey === '' ? 'true' : '(strpos(c.name_key, $1) > 0 OR strpos(c.origin_name_key, $1) > 0)';
      const filterParams = nameKey === '' ? [] : [nameKey];
      const params = [...filterParams];
      // The match is a scan of every collection's key whatever the offset, so an offset adds no
      // work worth capping (and the integer keys this route hands out stay honoured).
      const { where, tail } = collectionOrder(
        { limit: plan.limit, offset: plan.offset, desc: plan.desc },
        params,
        Infinity,
      );
      const [rows, total] = await Promise.all([
        select(
          `SELECT ${COLLECTION_COLUMNS} FROM nft_collection c ${CREATOR_JOIN} WHERE ${filter}${where}${tail}`,
          params,
          false,
        ),
        // by_name always counts (the reference ignores count_total here).
        plainCount(ctx, `SELECT count(*) AS n FROM nft_collection c WHERE ${filter}`, filterParams),
      ]);
      return toPage(rows, plan.limit, total);
    },

    async byAddr(addr) {
      const { rows } = await ctx.db.query<CollectionRow>(
        `SELECT ${COLLECTION_COLUMNS} FROM nft_collection c ${CREATOR_JOIN} WHERE c.addr = $1`,
        [Buffer.from(addr)],
      );
      return rows[0];
    },
  };
}
