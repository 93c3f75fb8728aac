import type { BlockValue } from '../../wire/block.js';
import { keysetSql, takePage, type KeysetPlan } from '../pagination.js';
import { ridingTotal, runOffsetScan, type ReaderContext } from './context.js';

/** One block row, pre-formatted by SQL for its document (src/wire/block.ts). */
export type BlockRow = BlockValue;

export interface BlockPage {
  rows: BlockRow[];
  hasMore: boolean;
  /** Latest height (docs/api.md §2.4: the blocks total is the head, not a count). */
  total: string;
}

const BLOCK_COLUMNS =
  `b.height, upper(encode(b.hash, 'hex')) AS hash, b.block_time_ms AS "blockTimeMs", ` +
  `to_char(b."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "timestamp", ` +
  `b.gas_used AS "gasUsed", b.gas_wanted AS "gasWanted", b.tx_count AS "txCount", b.total_fee AS "totalFee", ` +
  `b.proposer, COALESCE(v.moniker, '') AS moniker`;
const BLOCK_FROM = 'FROM block b LEFT JOIN validator v ON v.operator_address = b.proposer';
const LATEST_HEIGHT = 'SELECT COALESCE(MAX(height), 0) AS n FROM block';
/** Txs stored undecoded (docs/api.md §14): a small table, its rows are the exceptions. */
const UNDECODED_TXS = 'SELECT count(*)::int FROM undecoded_tx';

export interface StatusHeights {
  height: number;
  internalTxHeight: number | undefined;
  richListHeight: number | undefined;
  /** Txs stored undecoded (docs/api.md §14). */
  undecodedTxs: number;
}

export interface BlockReader {
  list(plan: KeysetPlan): Promise<BlockPage>;
  byHeight(height: string): Promise<BlockRow | undefined>;
  /** Blocks with after < height ≤ upto, at most `limit`, ascending (the live block stream). */
  range(after: number, upto: number, limit: number): Promise<BlockRow[]>;
  /**
   * The newest indexed height (undefined before the first block), and each stage's height where
   * that stage has run on this database (its checkpoint row exists).
   */
  statusHeights(): Promise<StatusHeights | undefined>;
  /** Mean seconds between the newest 100 blocks; 0 with fewer than two. */
  averageBlockTime(): Promise<number>;
  /** Txs stored undecoded (docs/api.md §14). */
  undecodedTxs(): Promise<number>;
}

export function createBlockReader(ctx: ReaderContext): BlockReader {
  return {
    async list(plan) {
      const params: unknown[] = [];
      // Heights are gapless, so any offset is a key look-up.
      const { where, tail, offsetScan } = keysetSql(plan, 'b.height', params, {
        maxOffset: ctx.maxOffset,
        gapless: { table: 'block', column: 'height' },
      });
      // The total (latest height) rides along in the same statement: one round trip per page.
      const { rows } = await runOffsetScan(ctx, offsetScan, () =>
        ctx.db.query<BlockRow & { total: number }>(
          `SELECT ${BLOCK_COLUMNS}, (${LATEST_HEIGHT}) AS total ${BLOCK_FROM} WHERE true${where}${tail}`,
          params,
        ),
      );
      const total = await ridingTotal(ctx, rows, `(${LATEST_HEIGHT})`);
      const page = takePage(rows, plan.limit);
      return { rows: page.rows, hasMore: page.hasMore, total };
    },
    async byHeight(height) {
      const { rows } = await ctx.db.query<BlockRow>(
        `SELECT ${BLOCK_COLUMNS} ${BLOCK_FROM} WHERE b.height = $1::bigint`,
        [height],
      );
      return rows[0];
    },
    async range(after, upto, limit) {
      const { rows } = await ctx.db.query<BlockRow>(
        `SELECT ${BLOCK_COLUMNS} ${BLOCK_FROM} WHERE b.height > $1 AND b.height <= $2 ORDER BY b.height LIMIT ${Math.trunc(limit)}`,
        [after, upto],
      );
      return rows;
    },
    async statusHeights() {
      const { rows } = await ctx.db.query<{
        height: number | null;
        internal_tx: number | null;
        rich_list: number | null;
        undecoded: number;
      }>(
        `SELECT (SELECT height FROM block ORDER BY height DESC LIMIT 1) AS height,
                (SELECT height FROM checkpoint WHERE stream = 'internal_tx') AS internal_tx,
                (SELECT height FROM checkpoint WHERE stream = 'rich_list') AS rich_list,
                (${UNDECODED_TXS}) AS undecoded`,
      );
      const row = rows[0];
      if (!row || row.height === null) return undefined;
      return {
        height: row.height,
        internalTxHeight: row.internal_tx ?? undefined,
        richListHeight: row.rich_list ?? undefined,
        undecodedTxs: row.undecoded,
      };
    },
    async undecodedTxs() {
      const { rows } = await ctx.db.query<{ n: number }>(`SELECT (${UNDECODED_TXS}) AS n`);
      return rows[0]?.n ?? 0;
    },
    async averageBlockTime() {
      const { rows } = await ctx.db.query<{ n: number; span: number | null }>(
        `SELECT count(*)::int AS n, ` +
          `(extract(epoch FROM max(ts)) - extract(epoch FROM min(ts)))::float8 AS span ` +
          `FROM (SELECT "timestamp" AS ts FROM block ORDER BY height DESC LIMIT 100) newest`,
      );
      const row = rows[0];
      if (!row || row.n < 2 || row.span === null) return 0;
      return row.span / (row.n - 1);
    },
  };
}
