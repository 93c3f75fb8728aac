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

/** The highest committed tx sequence (0 when none): the chain's snapshot for an account walk. */
export async function committedTxSequence(ctx: ReaderContext): Promise<number> {
  const { rows } = await ctx.db.query<{ n: string }>('SELECT COALESCE(MAX(sequence), 0)::text AS n FROM tx');
  return Number(rows[0]?.n ?? 0);
}

export interface AccountTxWalkStep {
  accountId: number;
  signerOnly: boolean;
  /** Message-type ids (any of them); undefined = no filter; [] = nothing can match. */
  msgTypeIds: readonly number[] | undefined;
  desc: boolean;
  /** The walk's snapshot (no row past it); undefined: the committed sequence, read by the same statement. */
  atMost: number | undefined;
  /** Exclusive position in list order (the last row served); undefined = from the start. */
  after?: number;
  limit: number;
  /**
   * Read the kept count too: ingest's counter without a message filter, else the sum over the
   * kept message-type sets that intersect it (docs/api.md §1.8). No scan.
   */
  countTotal: boolean;
}

export interface AccountTxWalkRows {
  snapshot: number;
  rows: AccountTxRow[];
  total: number;
}

/**
 * One chain's part of an account walk's page in one statement (one round trip, one snapshot):
 * the snapshot (given, or the committed sequence), the account's txs within it in sequence order
 * after the position (`limit` rows at most), and its kept count when asked.
 */
export async function accountTxWalkStep(
  ctx: ReaderContext,
  w: AccountTxWalkStep,
): Promise<AccountTxWalkRows> {
  const none = w.msgTypeIds !== undefined && w.msgTypeIds.length === 0;
  const params: unknown[] = [w.accountId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const snap =
    w.atMost === undefined
      ? 'SELECT COALESCE(MAX(sequence), 0) FROM tx'
      : `SELECT ${param(w.atMost)}::bigint`;
  const column = w.signerOnly ? 'signed' : 'txs';
  const total =
    !w.countTotal || none
      ? '0'
      : w.msgTypeIds === undefined
        ? `(SELECT ${column} FROM tx_account_counts WHERE account_id = $1)`
        : `(SELECT sum(${column}) FROM tx_account_msg_type_sets ` +
          `WHERE account_id = $1 AND type_ids && ${param(w.msgTypeIds)}::int[])`;
  let where = `a.account_id = $1 AND a.sequence <= s.snap`;
  if (w.signerOnly) where += ' AND a.signer';
  if (w.after !== undefined) where += ` AND a.sequence ${w.desc ? '<' : '>'} ${param(w.after)}`;
  if (w.msgTypeIds !== undefined)
    where +=
      ` AND EXISTS (SELECT 1 FROM tx_msg_types m WHERE m.sequence = a.sequence` +
      ` AND m.msg_type_id = ANY(${param(w.msgTypeIds)}::int[]))`;
  const dir = w.desc ? 'DESC' : 'ASC';
  const limit = none ? '0' : param(w.limit);
  const sql =
    `WITH s AS (SELECT (${snap}) AS snap, ${total}::bigint AS total) ` +
    `SELECT s.snap, COALESCE(s.total, 0)::bigint AS total, p.* FROM s LEFT JOIN LATERAL ` +
    `(SELECT t.sequence, ${storedTextColumns('tx', 't')} FROM (SELECT a.sequence FROM tx_accounts a WHERE ${where} ` +
    `ORDER BY a.sequence ${dir} LIMIT ${limit}) q JOIN tx t ON t.sequence = q.sequence) p ON true ` +
    `ORDER BY p.sequence ${dir}`;
  const { rows } = await queryStoredJson<
    StoredTextRow & { snap: number | string; total: number | string; sequence: number | string | null }
  >(ctx, sql, params);
  const first = rows[0]!;
  return {
    snapshot: Number(first.snap),
    total: Number(first.total),
    rows: rows.flatMap((r) =>
      r.sequence === null ? [] : [{ sequence: Number(r.sequence), data: storedText(r) }],
    ),
  };
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
