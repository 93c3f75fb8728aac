import { AppError } from '../../shared/errors.js';
import type { Db } from '../driver/db.js';
import type { JsonText } from './stored-json.js';
import type { RowCache } from './row-cache.js';
import { overloadedError, type WorkLimiter } from './work-limiter.js';

/** What every reader needs: the (read-only) database and the time budget for totals. */
export interface ReaderContext {
  db: Db;
  /** Statement timeout for `pagination.total` counts; past it the total is "-1" (docs/api.md §1.8). */
  countTimeoutMs: number;
  /** Shares identical counts between concurrent requests (and for a short TTL when set). */
  totals?: TotalsCache;
  /** Deepest OFFSET a reader scans (API_MAX_OFFSET); default DEFAULT_MAX_OFFSET. */
  maxOffset?: number;
  /** Cap on concurrent exact counts and offset scans (API_MAX_EXPENSIVE_QUERIES); none when unset. */
  expensive?: WorkLimiter;
  /** Stored JSON rows by sequence (API_ROW_CACHE_MB); list pages read only their sequences then. */
  rowCache?: RowCache;
}

/**
 * Runs an offset scan under the expensive-query cap; when the cap is full it is not run and the
 * request fails with the retryable `overloaded` error (503).
 */
export function runOffsetScan<T>(ctx: ReaderContext, offsetScan: boolean, fn: () => Promise<T>): Promise<T> {
  if (!offsetScan || !ctx.expensive) return fn();
  const running = ctx.expensive.tryRun(fn);
  if (running === undefined) return Promise.reject(overloadedError(ctx.expensive.max));
  return running;
}

/**
 * Counts are per filter, not per page: concurrent requests for the same filter (an account's
 * pages, a polling client) share one query, and with a TTL the result is reused briefly,
 * like a cached response would be.
 */
export interface TotalsCache {
  get(key: string, compute: () => Promise<string>): Promise<string>;
}

export function createTotalsCache(options: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): TotalsCache {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const inflight = new Map<string, Promise<string>>();
  const stored = new Map<string, { value: string; expiresAt: number }>();
  return {
    async get(key, compute) {
      const hit = stored.get(key);
      if (hit && hit.expiresAt > now()) return hit.value;
      const running = inflight.get(key);
      if (running) return running;
      const promise = compute().finally(() => inflight.delete(key));
      inflight.set(key, promise);
      const value = await promise;
      if (options.ttlMs > 0) {
        stored.delete(key);
        stored.set(key, { value, expiresAt: now() + options.ttlMs });
        if (stored.size > maxEntries) {
          const oldest = stored.keys().next();
          if (!oldest.done) stored.delete(oldest.value);
        }
      }
      return value;
    },
  };
}

/**
 * Rows with stored JSON columns: as bytes where the driver offers it (the API's PostgreSQL pool),
 * text elsewhere (PGlite). Only for columns that are spliced into a body as they are.
 */
export function queryStoredJson<Row>(ctx: ReaderContext, sql: string, params: readonly unknown[]) {
  return ctx.db.queryBytes ? ctx.db.queryBytes<Row>(sql, params) : ctx.db.query<Row>(sql, params);
}

/** A page of stored, already-rendered JSON texts in page order. */
export interface JsonPage {
  items: JsonText[];
  /** Keyset column value of the last item (undefined on an empty page). */
  lastValue: number | undefined;
  hasMore: boolean;
  total: string;
}

export const EMPTY_PAGE: JsonPage = { items: [], lastValue: undefined, hasMore: false, total: '0' };

/**
 * Runs a single-value count under its own statement timeout: on PostgreSQL through sessions that
 * carry that timeout (one round trip); PGlite (embedded, one process) just counts.
 */
export async function countWithTimeout(
  ctx: ReaderContext,
  sql: string,
  params: readonly unknown[],
): Promise<string> {
  if (!ctx.totals) return runCountWithTimeout(ctx, sql, params);
  return ctx.totals.get(`${sql}\u0000${JSON.stringify(params)}`, () => runCountWithTimeout(ctx, sql, params));
}

/** An exact count that finds the expensive-query cap full reports "-1", like a timed-out one. */
async function runCountWithTimeout(
  ctx: ReaderContext,
  sql: string,
  params: readonly unknown[],
): Promise<string> {
  if (!ctx.expensive) return countUnderTimeout(ctx, sql, params);
  return ctx.expensive.tryRun(() => countUnderTimeout(ctx, sql, params)) ?? '-1';
}

async function countUnderTimeout(
  ctx: ReaderContext,
  sql: string,
  params: readonly unknown[],
): Promise<string> {
  const timed = ctx.db.withStatementTimeout?.(Math.max(1, Math.floor(ctx.countTimeoutMs)));
  if (!timed) return firstCount(await ctx.db.query<{ n: unknown }>(sql, params));
  try {
    return firstCount(await timed.query<{ n: unknown }>(sql, params));
  } catch (err) {
    if (err instanceof AppError && err.code === 'db_statement_timeout') return '-1';
    throw err;
  }
}

/**
 * A total that rides along in a page's own statement, as the column `total` = `scalarSql` (a scalar
 * subquery over the page's filter parameters): one round trip per page. A page past the end has
 * no row to carry it, so it is read alone then.
 */
export async function ridingTotal(
  ctx: ReaderContext,
  rows: readonly object[],
  scalarSql: string,
  params: readonly unknown[] = [],
): Promise<string> {
  const first = rows[0] as { total?: unknown } | undefined;
  return first ? String(first.total) : plainCount(ctx, `SELECT ${scalarSql} AS n`, params);
}

/** A count without timeout (MAX(sequence) and friends are index look-ups). */
export async function plainCount(ctx: ReaderContext, sql: string, params: readonly unknown[] = []) {
  return firstCount(await ctx.db.query<{ n: unknown }>(sql, params));
}

function firstCount(result: { rows: { n: unknown }[] }): string {
  const value = result.rows[0]?.n;
  return value === null || value === undefined ? '0' : String(value);
}
