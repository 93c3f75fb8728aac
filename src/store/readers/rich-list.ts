import { checkOffset, limitSql, takePage } from '../pagination.js';
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
  /**
   * Holders (balance above zero) of a denom as a client spells it (lower-cased): the stored denom
   * itself, or else a learnt alias.
   */
  holders(
    denom: string,
    plan: HolderPlan,
    o: { countTotal: boolean },
  ): Promise<{ rows: HolderRow[]; hasMore: boolean; total: string }>;
}

/**
 * The stored denom for $1: the text itself when balances are stored under it, else an alias ingest
 * learnt, else the text. A stored denom comes first, so no alias (e.g. a Move asset whose symbol
 * spells a real denom) can take its list over. One uncorrelated scalar subquery, so the planner runs
 * it once as an InitPlan and `rich_list_holders_idx` still applies to the page. The ORDER BY keeps
 * the existence probe on the primary key even under a generic plan (a sequential scan would have to
 * read every row to sort them), so a spelling that is only an alias never scans the table.
 */
const STORED_DENOM =
  `(SELECT COALESCE((SELECT s.denom FROM rich_list s WHERE s.denom = $1 ORDER BY s.account_id LIMIT 1), ` +
  `(SELECT a.denom FROM rich_list_denom a WHERE a.alias = $1), $1))`;

/**
 * One statement per page: the denom resolved, the page cut from `rich_list_holders_idx` alone (by
 * amount, then account id, from the cursor or the offset), only its rows joined to their account,
 * and the kept holder count beside them.
 */
export function createRichListReader(ctx: ReaderContext): RichListReader {
  return {
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
      const limits = limitSql(plan.limit, plan.after ? 0 : plan.offset, params);
      const total = o.countTotal
        ? `(SELECT holders FROM rich_list_holders WHERE denom = ${STORED_DENOM})`
        : '0';
      const sql =
        `SELECT q.account_id AS "accountId", d.account, q.amount::text AS amount, ${total} AS total FROM (` +
        `SELECT r.account_id, r.amount FROM rich_list r WHERE r.denom = ${STORED_DENOM} AND r.amount > 0${bound} ` +
        `ORDER BY r.amount ${dir}, r.account_id ${dir}${limits}) q ` +
        `JOIN account_dict d ON d.id = q.account_id ORDER BY q.amount ${dir}, q.account_id ${dir}`;
      const page = await runOffsetScan(ctx, !plan.after && plan.offset > 0, () =>
        ctx.db.query<HolderRow & { total: number | null }>(sql, params),
      );
      const { rows, hasMore } = takePage(page.rows, plan.limit);
      let count = String(page.rows[0]?.total ?? 0);
      // A page past the end has no row to carry the total.
      if (o.countTotal && page.rows.length === 0) {
        count = await plainCount(
          ctx,
          `SELECT holders AS n FROM rich_list_holders WHERE denom = ${STORED_DENOM}`,
          [denom],
        );
      }
      return {
        rows: rows.map(({ accountId, account, amount }) => ({ accountId, account, amount })),
        hasMore,
        total: count,
      };
    },
  };
}
