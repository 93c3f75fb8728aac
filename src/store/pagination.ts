import { InputError } from '../shared/errors.js';

/**
 * The SQL side of paging: the keyset/offset plan a reader executes, its LIMIT/OFFSET fragments,
 * and the bound on offset scans. Parsing HTTP pagination lives in the API (src/api/pagination.ts).
 */

/** What a reader runs: rows strictly after `after` (keyset) or from `offset`, fetching limit + 1. */
export interface KeysetPlan {
  /** Keyset bound on the route's column; when set, offset is 0. */
  after?: number;
  offset: number;
  limit: number;
  desc: boolean;
}

/**
 * How many rows a page statement fetches: limit + 1 rounded up to one of these sizes, written into
 * the SQL text. With `LIMIT $n` PostgreSQL cannot cost a generic plan (it assumes a tenth of the
 * table), so it re-plans every execution of a prepared statement, and planning costs as much as
 * the page itself (~2x the server's CPU per page, bench:richlist-api and pgbench). A literal row
 * count lets it keep one generic plan per connection; the few sizes bound the number of distinct
 * statements each connection prepares. takePage trims the extra rows.
 */
const FETCH_SIZES = [2, 6, 11, 21, 31, 51, 101, 201, 301, 501, 1001];

export function fetchSize(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`page limit ${limit}`);
  return FETCH_SIZES.find((n) => n > limit) ?? limit + 1;
}

/** ` LIMIT <fetchSize>`, then ` OFFSET $k` (appended to params) when offset > 0. */
export function limitSql(limit: number, offset: number, params: unknown[]): string {
  if (offset === 0) return ` LIMIT ${fetchSize(limit)}`;
  params.push(offset);
  return ` LIMIT ${fetchSize(limit)} OFFSET $${params.length}`;
}

/** Splits a page fetch (limit + 1 rows or more) into the page and whether more rows exist. */
export function takePage<Row>(rows: Row[], limit: number): { rows: Row[]; hasMore: boolean } {
  return rows.length > limit ? { rows: rows.slice(0, limit), hasMore: true } : { rows, hasMore: false };
}

/**
 * Bounded work per request: an OFFSET makes PostgreSQL walk and drop that many rows, so a deep
 * offset costs as much as the table is long. Readers either turn it into a key look-up (on a
 * gapless column) or refuse offsets above `maxOffset` with a 400 naming the limit.
 */
export const DEFAULT_MAX_OFFSET = 10_000;

/** A column holding exactly the integers min..max of its table (tx.sequence, block.height). */
export interface GaplessColumn {
  table: string;
  column: string;
}

export interface OffsetBounds {
  /** Largest OFFSET a reader may scan (API_MAX_OFFSET); default DEFAULT_MAX_OFFSET. */
  maxOffset?: number | undefined;
  /** When the ordered column is gapless over the whole table, offsets become key look-ups. */
  gapless?: GaplessColumn;
}

/** Refuses an offset scan deeper than the limit: 400, naming the limit and the way around it. */
export function checkOffset(offset: number, maxOffset: number = DEFAULT_MAX_OFFSET): void {
  if (offset > maxOffset) {
    throw new InputError(
      'offset_too_large',
      `pagination offset ${offset} is above the limit of ${maxOffset} (API_MAX_OFFSET) for this query; ` +
        'page with the next_key cursor or narrow the filter instead',
    );
  }
}

/**
 * SQL fragments for a keyset plan on `column`; params are appended to `params`. `offsetScan`
 * says whether the statement walks `offset` rows (the work the expensive-query cap limits).
 */
export function keysetSql(
  plan: KeysetPlan,
  column: string,
  params: unknown[],
  bounds: OffsetBounds = {},
): { where: string; tail: string; offsetScan: boolean } {
  const dir = plan.desc ? 'DESC' : 'ASC';
  let where = '';
  if (plan.after !== undefined) {
    params.push(plan.after);
    where = ` AND ${column} ${plan.desc ? '<' : '>'} $${params.length}`;
  }
  let offsetScan = false;
  if (plan.offset > 0 && bounds.gapless && plan.after === undefined) {
    // Row k from the top of a gapless column is the value max - k (or min + k ascending).
    const { table, column: bare } = bounds.gapless;
    params.push(plan.offset);
    where += plan.desc
      ? ` AND ${column} <= (SELECT max(${bare}) FROM ${table}) - $${params.length}::bigint`
      : ` AND ${column} >= (SELECT min(${bare}) FROM ${table}) + $${params.length}::bigint`;
  } else if (plan.offset > 0) {
    checkOffset(plan.offset, bounds.maxOffset);
    offsetScan = true;
  }
  const tail = ` ORDER BY ${column} ${dir}${limitSql(plan.limit, offsetScan ? plan.offset : 0, params)}`;
  return { where, tail, offsetScan };
}
