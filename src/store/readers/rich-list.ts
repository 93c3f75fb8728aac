import { checkOffset, takePage } from '../pagination.js';
import { plainCount, runOffsetScan, type ReaderContext } from './context.js';

/** Where a page starts: after a (amount, account id) cursor, or at an offset. */
export interface HolderPlan {
  limit: number;
  offset: number;
  after?: { amount: string; accountId: number };
  /** Largest balances first (the default). */
  desc: boolean;
}

export interface HolderRow {
  accountId: number;
  account: Uint8Array;
  amount: string;
}

export interface RichListReader {
  /** The stored denom for what a client sent (already lower-cased): an alias, or itself. */
  resolveDenom(denom: string): Promise<string>;
  holders(
    denom: string,
    plan: HolderPlan,
    o: { countTotal: boolean },
  ): Promise<{ rows: HolderRow[]; hasMore: boolean; total: string }>;
}

/**
 * Holders (balance above zero) of a denom by amount, then account id: one index range scan
 * (`rich_list_holders_idx`) from the cursor, so every page costs the same at any depth.
 */
export function createRichListReader(ctx: ReaderContext): RichListReader {
  return {
    async resolveDenom(denom) {
      const { rows } = await ctx.db.query<{ denom: string }>(
        'SELECT denom FROM rich_list_denom WHERE alias = $1',
        [denom],
      );
      return rows[0]?.denom ?? denom;
    },
    async holders(denom, plan, o) {
      const params: unknown[] = [denom];
      const dir = plan.desc ? 'DESC' : 'ASC';
      let bound = '';
      if (plan.after) {
        params.push(plan.after.amount, plan.after.accountId);
        bound = ` AND (r.amount, r.account_id) ${plan.desc ? '<' : '>'} ($2::numeric, $3::bigint)`;
      } else if (plan.offset > 0) {
        checkOffset(plan.offset, ctx.maxOffset);
      }
      params.push(plan.limit + 1, plan.after ? 0 : plan.offset);
      // The page is cut from the index alone; only its rows then look up their account.
      const sql =
        `SELECT q.account_id AS "accountId", d.account, q.amount::text AS amount FROM (` +
        `SELECT r.account_id, r.amount FROM rich_list r WHERE r.denom = $1 AND r.amount > 0${bound} ` +
        `ORDER BY r.amount ${dir}, r.account_id ${dir} LIMIT $${params.length - 1} OFFSET $${params.length}) q ` +
        `JOIN account_dict d ON d.id = q.account_id ORDER BY q.amount ${dir}, q.account_id ${dir}`;
      const [page, total] = await Promise.all([
        runOffsetScan(ctx, !plan.after && plan.offset > 0, () => ctx.db.query<HolderRow>(sql, params)),
        o.countTotal
          ? plainCount(ctx, 'SELECT holders AS n FROM rich_list_holders WHERE denom = $1', [denom])
          : Promise.resolve('0'),
      ]);
      const { rows, hasMore } = takePage(page.rows, plan.limit);
      return { rows, hasMore, total };
    },
  };
}
