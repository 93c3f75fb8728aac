import { checkOffset, limitSql, takePage } from '../pagination.js';
import { ridingTotal, runOffsetScan, type ReaderContext } from './context.js';

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

/** The rich list's version: the stage's checkpoint row changes in every transaction that writes balances. */
const VERSION = `(SELECT xmin::text FROM checkpoint WHERE stream = 'rich_list')`;

/** The kept holder count of the denom $1 resolves to. */
const HOLDERS_TOTAL = `(SELECT holders FROM rich_list_holders WHERE denom = ${STORED_DENOM})`;

type Page = { rows: HolderRow[]; hasMore: boolean; total: string };
type PageRow = HolderRow & { total: number | null; version: string | null };

/**
 * One statement per page: the denom resolved, the page cut from `rich_list_holders_idx` alone (by
 * amount, then account id, from the cursor or the offset), only its rows joined to their account,
 * and the kept holder count and the list's version beside them.
 */
function pageStatement(denom: string, plan: HolderPlan, countTotal: boolean) {
  const params: unknown[] = [denom];
  const dir = plan.desc ? 'DESC' : 'ASC';
  let bound = '';
  if (plan.after) {
    params.push(plan.after.amount, plan.after.accountId);
    bound = ` AND (r.amount, r.account_id) ${plan.desc ? '<' : '>'} ($2::numeric, $3::bigint)`;
  }
  const limits = limitSql(plan.limit, plan.offset, params);
  const total = countTotal ? HOLDERS_TOTAL : '0';
  const sql =
    `SELECT q.account_id AS "accountId", d.account, q.amount::text AS amount, ${total} AS total, ` +
    `${VERSION} AS version FROM (` +
    `SELECT r.account_id, r.amount FROM rich_list r WHERE r.denom = ${STORED_DENOM} AND r.amount > 0${bound} ` +
    `ORDER BY r.amount ${dir}, r.account_id ${dir}${limits}) q ` +
    `JOIN account_dict d ON d.id = q.account_id ORDER BY q.amount ${dir}, q.account_id ${dir}`;
  return { sql, params };
}

/**
 * Offset pages start from a remembered position instead of walking the offset: the holder just
 * before every RANK_STRIDE-th rank, learnt by the first request that reaches it (one offset scan)
 * and valid while the list's version is unchanged. A page read from a mark carries the version
 * it was read at, so a page never mixes two versions; a stale mark is dropped and the page read
 * by offset. Deep offset pages then cost about what key pages cost, while the stage is idle.
 */
const RANK_STRIDE = 100;
const MAX_MARKS = 4096;

interface RankMark {
  version: string;
  amount: string;
  accountId: number;
}

type ReadPage = (denom: string, plan: HolderPlan, countTotal: boolean) => Promise<PageRow[]>;

function createRankMarks(read: ReadPage) {
  const marks = new Map<string, RankMark>();
  const learning = new Map<string, Promise<RankMark | undefined>>();

  async function learn(denom: string, desc: boolean, rank: number): Promise<RankMark | undefined> {
    // The holder at index rank - 1 of the list: the position a page at offset `rank` follows.
    const [row] = await read(denom, { limit: 1, offset: rank - 1, desc }, false);
    if (!row || row.version === null) return undefined;
    return { version: row.version, amount: row.amount, accountId: row.accountId };
  }

  const keyOf = (denom: string, desc: boolean, rank: number) => `${desc ? 'd' : 'a'}${rank}:${denom}`;

  return {
    /** The mark before `rank` (a multiple of RANK_STRIDE), learnt now if unknown. */
    async find(denom: string, desc: boolean, rank: number): Promise<RankMark | undefined> {
      const key = keyOf(denom, desc, rank);
      const known = marks.get(key);
      if (known) return known;
      let pending = learning.get(key);
      if (!pending) {
        pending = learn(denom, desc, rank).finally(() => learning.delete(key));
        learning.set(key, pending);
      }
      const mark = await pending;
      if (mark) {
        if (marks.size >= MAX_MARKS) marks.delete(marks.keys().next().value!);
        marks.set(key, mark);
      }
      return mark;
    },
    forget(denom: string, desc: boolean, rank: number): void {
      marks.delete(keyOf(denom, desc, rank));
    },
  };
}

export function createRichListReader(ctx: ReaderContext): RichListReader {
  const read: ReadPage = async (denom, plan, countTotal) => {
    const { sql, params } = pageStatement(denom, plan, countTotal);
    const offsetScan = !plan.after && plan.offset > 0;
    const { rows } = await runOffsetScan(ctx, offsetScan, () => ctx.db.query<PageRow>(sql, params));
    return rows;
  };
  const marks = createRankMarks(read);

  async function toPage(denom: string, rows: PageRow[], limit: number, countTotal: boolean): Promise<Page> {
    const page = takePage(rows, limit);
    return {
      rows: page.rows.map(({ accountId, account, amount }) => ({ accountId, account, amount })),
      hasMore: page.hasMore,
      total: countTotal ? await ridingTotal(ctx, rows, HOLDERS_TOTAL, [denom]) : '0',
    };
  }

  /** A deep offset page from the mark before it; undefined when no current mark gives it. */
  async function fromMark(denom: string, plan: HolderPlan, countTotal: boolean): Promise<Page | undefined> {
    const rank = plan.offset - (plan.offset % RANK_STRIDE);
    const mark = await marks.find(denom, plan.desc, rank);
    if (!mark) return undefined;
    const after = { amount: mark.amount, accountId: mark.accountId };
    const rows = await read(denom, { ...plan, after, offset: plan.offset - rank }, countTotal);
    if (rows[0]?.version === mark.version) return toPage(denom, rows, plan.limit, countTotal);
    // Written since (or past the end, where no row carries the version): read by offset.
    if (rows.length > 0) marks.forget(denom, plan.desc, rank);
    return undefined;
  }

  return {
    async holders(denom, plan, o) {
      if (!plan.after && plan.offset > 0) checkOffset(plan.offset, ctx.maxOffset);
      if (!plan.after && plan.offset >= RANK_STRIDE) {
        const page = await fromMark(denom, plan, o.countTotal);
        if (page) return page;
      }
      return toPage(denom, await read(denom, plan, o.countTotal), plan.limit, o.countTotal);
    },
  };
}
