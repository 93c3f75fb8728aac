import { checkOffset, fetchSize, keysetSql, limitSql, takePage, type KeysetPlan } from '../pagination.js';
import {
  countWithTimeout,
  plainCount,
  runOffsetScan,
  EMPTY_PAGE,
  queryStoredJson,
  type JsonPage,
  type ReaderContext,
} from './context.js';
import { storedText, storedTextColumns, type StoredTextRow } from './stored-json.js';
import type { RowCache } from './row-cache.js';

/**
 * Shared reader for a table of rendered JSON rows keyed by a gapless `sequence`
 * (Cosmos `tx`, `evm_tx`, `evm_internal_tx`) with its account edge table and, for Cosmos, its message-type edges.
 * Lists are keyset scans over (edge key, sequence) indexes; the JSON text is spliced as stored.
 */
export interface SequenceTables {
  main: 'tx' | 'evm_tx' | 'evm_internal_tx';
  accounts: 'tx_accounts' | 'evm_tx_accounts' | 'evm_internal_tx_accounts';
  /** Per-account edge counts kept by ingest (txs, signed): O(1) unfiltered totals. */
  accountCounts: 'tx_account_counts' | 'evm_tx_account_counts' | 'evm_internal_tx_account_counts';
  /** Only Cosmos txs carry message types. */
  msgTypes?: 'tx_msg_types';
  /** Account x message-type edges (migration 0004), for an account's txs filtered by type. */
  accountMsgTypes?: 'tx_account_msg_types';
  /** Tx counts per message-type set, whole chain and per account (migration 0014): `msgs` totals. */
  msgTypeSets?: { chain: 'tx_msg_type_sets'; accounts: 'tx_account_msg_type_sets' };
}

/** undefined = no filter; [] = a filter nothing can match (docs/api.md §0.2). */
export type MsgTypeFilter = readonly number[] | undefined;

interface SeqRow extends StoredTextRow {
  sequence: number;
}

/**
 * A page statement in two forms: `sql('rows')` selects `sequence, data` of the page's rows in page
 * order (one statement), `sql('sequences')` only their `sequence`s (an index scan that never
 * touches the stored JSON), for a reader with a row cache.
 */
interface PageStatement {
  sql(select: 'rows' | 'sequences'): string;
  params: unknown[];
  offsetScan: boolean;
}

/**
 * One page of rows and, when `total` is given, its total, fetched concurrently. A statement that
 * scans an OFFSET runs under the expensive-query cap.
 */
async function fetchPage(
  ctx: ReaderContext,
  main: SequenceTables['main'],
  statement: PageStatement,
  limit: number,
  total: (() => Promise<string>) | false,
): Promise<JsonPage> {
  const cache = ctx.rowCache;
  const rowsQuery = runOffsetScan(ctx, statement.offsetScan, () =>
    cache ? cachedPage(ctx, cache, main, statement, limit) : storedPage(ctx, statement, limit),
  );
  const [page, count] = await Promise.all([rowsQuery, total ? total() : '0']);
  return { ...page, total: count };
}

type PageRows = Omit<JsonPage, 'total'>;

async function storedPage(ctx: ReaderContext, statement: PageStatement, limit: number): Promise<PageRows> {
  const { rows } = await queryStoredJson<SeqRow>(ctx, statement.sql('rows'), statement.params);
  const page = takePage(rows, limit);
  return {
    items: page.rows.map(storedText),
    lastValue: page.rows.at(-1)?.sequence,
    hasMore: page.hasMore,
  };
}

/**
 * The page's sequences first, then the rows: from the row cache, the rest in one primary-key
 * read. Both statements go to the same database (a replica's own rows, never a mix).
 */
async function cachedPage(
  ctx: ReaderContext,
  cache: RowCache,
  main: SequenceTables['main'],
  statement: PageStatement,
  limit: number,
): Promise<PageRows> {
  const { rows } = await ctx.db.query<{ sequence: number }>(statement.sql('sequences'), statement.params);
  const page = takePage(rows, limit);
  const sequences = page.rows.map((r) => Number(r.sequence));
  const items = await cache.rows(main, sequences, async (missing) => {
    const fetched = await queryStoredJson<SeqRow>(
      ctx,
      `SELECT sequence, ${storedTextColumns(main)} FROM ${main} WHERE sequence = ANY($1::bigint[])`,
      [missing],
    );
    return fetched.rows.map((r) => ({ sequence: r.sequence, data: storedText(r) }));
  });
  return { items, lastValue: sequences.at(-1), hasMore: page.hasMore };
}

/** A page of the main table's rows through a subquery of edges that yields the page's sequences. */
function joinedStatement(
  main: SequenceTables['main'],
  sequences: string,
  desc: boolean,
): PageStatement['sql'] {
  return (select) =>
    select === 'sequences'
      ? sequences
      : `SELECT t.sequence, ${storedTextColumns(main, 't')} FROM (${sequences}) q JOIN ${main} t ON t.sequence = q.sequence ` +
        `ORDER BY t.sequence ${desc ? 'DESC' : 'ASC'}`;
}

function msgTypeCondition(tables: SequenceTables, alias: string, params: unknown[], ids: readonly number[]) {
  if (!tables.msgTypes) throw new Error('message-type filter on a table without message types');
  params.push(ids);
  return ` AND EXISTS (SELECT 1 FROM ${tables.msgTypes} m WHERE m.sequence = ${alias}.sequence AND m.msg_type_id = ANY($${params.length}::int[]))`;
}

/** All rows, newest first by default; optionally only those holding any of the message types. */
export async function listAll(
  ctx: ReaderContext,
  tables: SequenceTables,
  plan: KeysetPlan,
  options: { msgTypeIds: MsgTypeFilter; countTotal: boolean },
): Promise<JsonPage> {
  const ids = options.msgTypeIds;
  if (ids !== undefined && ids.length === 0) return EMPTY_PAGE;
  if (ids === undefined) {
    const params: unknown[] = [];
    // Sequences are gapless: any offset of the unfiltered list is a key look-up.
    const { where, tail, offsetScan } = keysetSql(plan, 'sequence', params, {
      maxOffset: ctx.maxOffset,
      gapless: { table: tables.main, column: 'sequence' },
    });
    return fetchPage(
      ctx,
      tables.main,
      {
        sql: (select) =>
          `SELECT ${select === 'rows' ? `sequence, ${storedTextColumns(tables.main)}` : 'sequence'} FROM ${tables.main} WHERE true${where}${tail}`,
        params,
        offsetScan,
      },
      plan.limit,
      options.countTotal &&
        (() => plainCount(ctx, `SELECT COALESCE(MAX(sequence), 0) AS n FROM ${tables.main}`)),
    );
  }
  if (!tables.msgTypes || !tables.msgTypeSets) {
    throw new Error('message-type filter on a table without message types');
  }
  return listByTypeEdges(ctx, tables.main, plan, {
    edges: tables.msgTypes,
    condition: '',
    params: [],
    msgTypeIds: ids,
    countSql:
      options.countTotal &&
      `SELECT COALESCE(sum(txs), 0) AS n FROM ${tables.msgTypeSets.chain} WHERE type_ids && $1::int[]`,
  });
}

/**
 * Rows holding any of the message types, from an edge table keyed by (…, msg_type_id, sequence):
 * one bounded index scan per type, merged. Cheap whatever the types' popularity or the account's
 * size, but each scan walks offset + limit rows, so the offset is capped.
 */
async function listByTypeEdges(
  ctx: ReaderContext,
  main: SequenceTables['main'],
  plan: KeysetPlan,
  scan: {
    edges: 'tx_msg_types' | 'tx_account_msg_types';
    /** Extra condition on the edges (`AND …`), over `params` ($2, $3, …). */
    condition: string;
    params: unknown[];
    msgTypeIds: readonly number[];
    /**
     * The total over the same parameters, from the counts kept per message-type set (migration
     * 0014): a tx counts once when its set intersects the filter, so the sum is exact for any
     * filter, and reads one row per distinct set (few on a chain) instead of every matching edge.
     */
    countSql: string | false;
  },
): Promise<JsonPage> {
  if (plan.offset > 0) checkOffset(plan.offset, ctx.maxOffset);
  const filterParams = [scan.msgTypeIds, ...scan.params];
  const params = [...filterParams];
  const dir = plan.desc ? 'DESC' : 'ASC';
  let bound = '';
  if (plan.after !== undefined) {
    params.push(plan.after);
    bound = ` AND sequence ${plan.desc ? '<' : '>'} $${params.length}`;
  }
  // Each type's scan reaches past the offset, so past the first page its size is a parameter too.
  let perType = ` LIMIT ${fetchSize(plan.limit)}`;
  if (plan.offset > 0) {
    params.push(plan.offset + plan.limit + 1);
    perType = ` LIMIT $${params.length}`;
  }
  const limits = limitSql(plan.limit, plan.offset, params);
  const sequences =
    `SELECT DISTINCT s.sequence FROM unnest($1::int[]) AS mt(id) ` +
    `CROSS JOIN LATERAL (SELECT sequence FROM ${scan.edges} WHERE msg_type_id = mt.id${scan.condition}${bound} ` +
    `ORDER BY sequence ${dir}${perType}) s ORDER BY s.sequence ${dir}${limits}`;
  const { countSql } = scan;
  return fetchPage(
    ctx,
    main,
    { sql: joinedStatement(main, sequences, plan.desc), params, offsetScan: plan.offset > 0 },
    plan.limit,
    countSql !== false && (() => plainCount(ctx, countSql, filterParams)),
  );
}

/** Rows the account takes part in (or signed, with signerOnly), through the edge table. */
export async function listByAccount(
  ctx: ReaderContext,
  tables: SequenceTables,
  plan: KeysetPlan,
  options: { accountId: number; signerOnly: boolean; msgTypeIds: MsgTypeFilter; countTotal: boolean },
): Promise<JsonPage> {
  const ids = options.msgTypeIds;
  if (ids !== undefined && ids.length === 0) return EMPTY_PAGE;
  if (ids !== undefined) {
    if (!tables.accountMsgTypes || !tables.msgTypeSets) {
      throw new Error('message-type filter on a table without message types');
    }
    // The account x message-type edges: bounded per type, however large the account.
    const column = options.signerOnly ? 'signed' : 'txs';
    return listByTypeEdges(ctx, tables.main, plan, {
      edges: tables.accountMsgTypes,
      condition: ` AND account_id = $2${options.signerOnly ? ' AND signer' : ''}`,
      params: [options.accountId],
      msgTypeIds: ids,
      countSql:
        options.countTotal &&
        `SELECT COALESCE(sum(${column}), 0) AS n FROM ${tables.msgTypeSets.accounts} ` +
          `WHERE account_id = $2 AND type_ids && $1::int[]`,
    });
  }
  const filterParams: unknown[] = [options.accountId];
  const filter = `a.account_id = $1${options.signerOnly ? ' AND a.signer' : ''}`;
  const params = [...filterParams];
  const { where, tail, offsetScan } = keysetSql(plan, 'a.sequence', params, { maxOffset: ctx.maxOffset });
  const sequences = `SELECT a.sequence FROM ${tables.accounts} a WHERE ${filter}${where}${tail}`;
  return fetchPage(
    ctx,
    tables.main,
    { sql: joinedStatement(tables.main, sequences, plan.desc), params, offsetScan },
    plan.limit,
    options.countTotal && (() => accountTotal(ctx, tables, options)),
  );
}

/** Without a msgs filter the total is ingest's counter: one row, however busy the account. */
function accountTotal(
  ctx: ReaderContext,
  tables: SequenceTables,
  options: { accountId: number; signerOnly: boolean },
): Promise<string> {
  const column = options.signerOnly ? 'signed' : 'txs';
  return plainCount(ctx, `SELECT ${column} AS n FROM ${tables.accountCounts} WHERE account_id = $1`, [
    options.accountId,
  ]);
}

/** Rows of one block, in sequence order. `height` is a decimal string (int64 range). */
export async function listByHeight(
  ctx: ReaderContext,
  tables: SequenceTables,
  plan: KeysetPlan,
  options: { height: string; msgTypeIds: MsgTypeFilter; countTotal: boolean },
): Promise<JsonPage> {
  const ids = options.msgTypeIds;
  if (ids !== undefined && ids.length === 0) return EMPTY_PAGE;
  const filterParams: unknown[] = [options.height];
  let filter = 't.height = $1::bigint';
  if (ids !== undefined) filter += msgTypeCondition(tables, 't', filterParams, ids);
  return listWhere(ctx, tables, plan, { filter, filterParams, countTotal: options.countTotal });
}

/** All rows with this hash (an EVM tx's internal calls), in sequence order. */
export async function listByHash(
  ctx: ReaderContext,
  tables: SequenceTables,
  plan: KeysetPlan,
  options: { hash: Uint8Array; countTotal: boolean },
): Promise<JsonPage> {
  return listWhere(ctx, tables, plan, {
    filter: 't.hash = $1',
    filterParams: [Buffer.from(options.hash)],
    countTotal: options.countTotal,
  });
}

/** A keyset page of the main table's rows matching `filter` (over `filterParams`). */
async function listWhere(
  ctx: ReaderContext,
  tables: SequenceTables,
  plan: KeysetPlan,
  where: { filter: string; filterParams: unknown[]; countTotal: boolean },
): Promise<JsonPage> {
  const { filter, filterParams } = where;
  const params = [...filterParams];
  const keyset = keysetSql(plan, 't.sequence', params, { maxOffset: ctx.maxOffset });
  return fetchPage(
    ctx,
    tables.main,
    {
      sql: (select) =>
        `SELECT ${select === 'rows' ? `t.sequence, ${storedTextColumns(tables.main, 't')}` : 't.sequence'} FROM ${tables.main} t ` +
        `WHERE ${filter}${keyset.where}${keyset.tail}`,
      params,
      offsetScan: keyset.offsetScan,
    },
    plan.limit,
    where.countTotal &&
      (() =>
        countWithTimeout(ctx, `SELECT count(*) AS n FROM ${tables.main} t WHERE ${filter}`, filterParams)),
  );
}

/** The first row with this hash (lowest sequence), as stored JSON text. */
export async function findByHash(
  ctx: ReaderContext,
  tables: SequenceTables,
  hash: Uint8Array,
): Promise<string | undefined> {
  const { rows } = await ctx.db.query<StoredTextRow>(
    `SELECT ${storedTextColumns(tables.main)} FROM ${tables.main} WHERE hash = $1 ORDER BY sequence LIMIT 1`,
    [Buffer.from(hash)],
  );
  return rows[0] && storedText(rows[0]).toString();
}

export const COSMOS_TX_TABLES: SequenceTables = {
  main: 'tx',
  accounts: 'tx_accounts',
  accountCounts: 'tx_account_counts',
  msgTypes: 'tx_msg_types',
  accountMsgTypes: 'tx_account_msg_types',
  msgTypeSets: { chain: 'tx_msg_type_sets', accounts: 'tx_account_msg_type_sets' },
};
export const EVM_TX_TABLES: SequenceTables = {
  main: 'evm_tx',
  accounts: 'evm_tx_accounts',
  accountCounts: 'evm_tx_account_counts',
};
export const EVM_INTERNAL_TX_TABLES: SequenceTables = {
  main: 'evm_internal_tx',
  accounts: 'evm_internal_tx_accounts',
  accountCounts: 'evm_internal_tx_account_counts',
};
