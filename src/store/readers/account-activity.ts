import { queryStoredJson, type ReaderContext } from './context.js';
import { storedText, storedTextColumns, type JsonText, type StoredTextRow } from './stored-json.js';

/**
 * One account's activity on one chain, read for the cross-chain account routes (docs/chains.md §4):
 * its txs bounded by a snapshot sequence, the chain's committed sequence, the kept counts, its
 * live NFTs and its rich-list balances.
 */

export interface AccountTxRow {
  sequence: number;
  data: JsonText;
}

export interface AccountTxWindow {
  accountId: number;
  signerOnly: boolean;
  /** Message-type ids (any of them); undefined = no filter; [] = nothing can match. */
  msgTypeIds: readonly number[] | undefined;
  desc: boolean;
  /** The snapshot: no row past this sequence. */
  atMost: number;
  /** Exclusive position in list order (the last row served); undefined = from the start. */
  after?: number;
  limit: number;
}

/** The highest committed tx sequence (0 when none): the chain's snapshot for an account walk. */
export async function committedTxSequence(ctx: ReaderContext): Promise<number> {
  const { rows } = await ctx.db.query<{ n: string }>('SELECT COALESCE(MAX(sequence), 0)::text AS n FROM tx');
  return Number(rows[0]?.n ?? 0);
}

/** The account's txs within the snapshot, in sequence order, after the position; `limit` rows at most. */
export async function accountTxsWithin(ctx: ReaderContext, w: AccountTxWindow): Promise<AccountTxRow[]> {
  if (w.msgTypeIds !== undefined && w.msgTypeIds.length === 0) return [];
  const params: unknown[] = [w.accountId, w.atMost];
  let where = `a.account_id = $1 AND a.sequence <= $2`;
  if (w.signerOnly) where += ' AND a.signer';
  if (w.after !== undefined) {
    params.push(w.after);
    where += ` AND a.sequence ${w.desc ? '<' : '>'} $${params.length}`;
  }
  if (w.msgTypeIds !== undefined) {
    params.push(w.msgTypeIds);
    where +=
      ` AND EXISTS (SELECT 1 FROM tx_msg_types m WHERE m.sequence = a.sequence` +
      ` AND m.msg_type_id = ANY($${params.length}::int[]))`;
  }
  const dir = w.desc ? 'DESC' : 'ASC';
  params.push(w.limit);
  const sql =
    `SELECT t.sequence, ${storedTextColumns('tx', 't')} FROM (SELECT a.sequence FROM tx_accounts a WHERE ${where} ` +
    `ORDER BY a.sequence ${dir} LIMIT $${params.length}) q JOIN tx t ON t.sequence = q.sequence ` +
    `ORDER BY t.sequence ${dir}`;
  const { rows } = await queryStoredJson<StoredTextRow & { sequence: number }>(ctx, sql, params);
  return rows.map((r) => ({ sequence: Number(r.sequence), data: storedText(r) }));
}

/**
 * The kept count of the account's txs (all, or signed): ingest's counter without a message filter,
 * else the sum over the kept message-type sets that intersect it (docs/api.md §1.8). No scan.
 */
export async function keptAccountTxCount(
  ctx: ReaderContext,
  o: { accountId: number; signerOnly: boolean; msgTypeIds: readonly number[] | undefined },
): Promise<number> {
  if (o.msgTypeIds !== undefined && o.msgTypeIds.length === 0) return 0;
  const column = o.signerOnly ? 'signed' : 'txs';
  const { rows } =
    o.msgTypeIds === undefined
      ? await ctx.db.query<{ n: string }>(
          `SELECT ${column}::text AS n FROM tx_account_counts WHERE account_id = $1`,
          [o.accountId],
        )
      : await ctx.db.query<{ n: string }>(
          `SELECT COALESCE(sum(${column}), 0)::text AS n FROM tx_account_msg_type_sets ` +
            `WHERE account_id = $1 AND type_ids && $2::int[]`,
          [o.accountId, o.msgTypeIds],
        );
  return Number(rows[0]?.n ?? 0);
}

export interface AccountSummaryRow {
  txs: number;
  signed: number;
  /** Stored JSON of the account's first and last tx (undefined when it has none). */
  first?: JsonText;
  last?: JsonText;
  nfts: number;
  /** Rich-list balances per denom (amount > 0), by denom. */
  balances: { denom: string; amount: string }[];
}

/** Counts, first/last tx, live NFTs held and balances of one account on this chain. */
export async function accountSummary(
  ctx: ReaderContext,
  accountId: number,
  o: { nfts: boolean; balances: boolean },
): Promise<AccountSummaryRow> {
  const edge = (dir: 'ASC' | 'DESC') =>
    queryStoredJson<StoredTextRow>(
      ctx,
      `SELECT ${storedTextColumns('tx', 't')} FROM (SELECT sequence FROM tx_accounts WHERE account_id = $1 ` +
        `ORDER BY sequence ${dir} LIMIT 1) q JOIN tx t ON t.sequence = q.sequence`,
      [accountId],
    );
  const [counts, first, last, nfts, balances] = await Promise.all([
    ctx.db.query<{ txs: string; signed: string }>(
      'SELECT txs::text AS txs, signed::text AS signed FROM tx_account_counts WHERE account_id = $1',
      [accountId],
    ),
    edge('ASC'),
    edge('DESC'),
    o.nfts
      ? ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM nft WHERE owner_id = $1', [accountId])
      : undefined,
    o.balances
      ? ctx.db.query<{ denom: string; amount: string }>(
          'SELECT denom, amount::text AS amount FROM rich_list WHERE account_id = $1 AND amount > 0 ORDER BY denom',
          [accountId],
        )
      : undefined,
  ]);
  const c = counts.rows[0];
  return {
    txs: Number(c?.txs ?? 0),
    signed: Number(c?.signed ?? 0),
    ...(first.rows[0] ? { first: storedText(first.rows[0]) } : {}),
    ...(last.rows[0] ? { last: storedText(last.rows[0]) } : {}),
    nfts: Number(nfts?.rows[0]?.n ?? 0),
    balances: balances?.rows ?? [],
  };
}
