import { TX_FEE_AMOUNT_PATH, TX_MESSAGES_PATH, storedTxCodeSql, storedTxGasUsedSql } from '../../wire/tx.js';
import type { Queryable } from '../driver/db.js';

/**
 * VIP score metrics, each one SQL aggregation over a window's txs (docs/vip-scores.md). The window
 * is a tx sequence range found through tx_height_idx, so every statement reads only the window's
 * rows by primary key; nothing is streamed into Node but one (account, value) row per address.
 *
 * Facts that live only inside the stored tx JSON are read from it in SQL:
 *  - `code` and `gas_used` by position, with the SQL the tx document's module gives
 *    (src/wire/tx.ts: storedTxCodeSql, storedTxGasUsedSql, which say why a position is safe);
 *  - fees and messages by parsing the text as `json` (cheaper than jsonb, no re-serialisation),
 *    only for the metrics that need them and, for messages, only for txs holding the message type
 *    (tx_msg_types' primary key finds them). A position search is not safe there: the tx body,
 *    written before auth_info, holds user JSON (a Wasm msg) that could fake a fee object.
 */

/** The tx's result code (0 = success). */
const CODE_SQL = storedTxCodeSql('t.data');
const GAS_USED_SQL = storedTxGasUsedSql('t.data');
const IN_WINDOW = 't.sequence BETWEEN $1 AND $2';

export interface ScoreMetricRow {
  accountId: number;
  /** Exact decimal text (numeric). */
  value: string;
}

export interface SequenceRange {
  lo: number;
  hi: number;
}

/** The first and last tx sequence of heights [from, to]; undefined when the heights hold no tx. */
export async function txSequenceRange(db: Queryable, fromHeight: number, toHeight: number) {
  const { rows } = await db.query<{ lo: number | null; hi: number | null }>(
    'SELECT min(sequence) AS lo, max(sequence) AS hi FROM tx WHERE height BETWEEN $1 AND $2',
    [fromHeight, toHeight],
  );
  const r = rows[0];
  return r && r.lo !== null && r.hi !== null ? { lo: Number(r.lo), hi: Number(r.hi) } : undefined;
}

async function aggregate(db: Queryable, sql: string, params: readonly unknown[]): Promise<ScoreMetricRow[]> {
  const { rows } = await db.query<{ account_id: number; value: string }>(sql, params);
  return rows.map((r) => ({ accountId: Number(r.account_id), value: String(r.value) }));
}

/** Successful txs signed (first signer) per account. */
export function txsSigned(db: Queryable, w: SequenceRange) {
  return aggregate(
    db,
    `SELECT t.signer_id AS account_id, count(*)::text AS value FROM tx t
      WHERE ${IN_WINDOW} AND ${CODE_SQL} = 0 GROUP BY t.signer_id`,
    [w.lo, w.hi],
  );
}

/** Gas used by every tx (failed ones too), charged to the fee payer (first signer). */
export function gasUsed(db: Queryable, w: SequenceRange) {
  return aggregate(
    db,
    `SELECT t.signer_id AS account_id, sum(${GAS_USED_SQL})::text AS value FROM tx t
      WHERE ${IN_WINDOW} GROUP BY t.signer_id`,
    [w.lo, w.hi],
  );
}

/** Fee amounts of one denom over every tx (failed ones too), charged to the fee payer. */
export function feesPaid(db: Queryable, w: SequenceRange, denom: string) {
  return aggregate(
    db,
    `SELECT t.signer_id AS account_id, sum((c.coin->>'amount')::numeric)::text AS value
       FROM tx t
      CROSS JOIN LATERAL json_array_elements(
        coalesce(t.data::json #> '${TX_FEE_AMOUNT_PATH}', '[]'::json)) AS c(coin)
      WHERE ${IN_WINDOW} AND c.coin->>'denom' = $3
      GROUP BY t.signer_id`,
    [w.lo, w.hi, denom],
  );
}

/** A condition on one message (`m`, its JSON) beyond its type, with its own parameters. */
export interface MessageFilter {
  /** SQL over `m` using $5, $6, … (the first four parameters are taken). */
  sql: string;
  params: readonly unknown[];
}

/**
 * Successful txs holding at least one message of the given types (and matching the filter) per
 * signer. Types are stored without the leading '/'.
 */
export function msgTxs(db: Queryable, w: SequenceRange, types: readonly string[], filter?: MessageFilter) {
  const typeUrls = types.map((t) => `/${t}`);
  const messageTest = filter
    ? `AND EXISTS (SELECT 1 FROM json_array_elements(
         coalesce(t.data::json #> '${TX_MESSAGES_PATH}', '[]'::json)) AS msg(m)
         WHERE m->>'@type' = ANY($4::text[]) AND (${filter.sql}))`
    : '';
  return aggregate(
    db,
    `SELECT t.signer_id AS account_id, count(*)::text AS value FROM tx t
      WHERE t.sequence IN (
              SELECT e.sequence FROM tx_msg_types e JOIN msg_type_dict d ON d.id = e.msg_type_id
               WHERE d.msg_type = ANY($3::text[]) AND e.sequence BETWEEN $1 AND $2)
        AND ${CODE_SQL} = 0 ${messageTest}
      GROUP BY t.signer_id`,
    filter ? [w.lo, w.hi, [...types], typeUrls, ...filter.params] : [w.lo, w.hi, [...types]],
  );
}

/** Distinct UTC dates with at least one successful signed tx. */
export function activeDays(db: Queryable, w: SequenceRange) {
  return aggregate(
    db,
    `SELECT t.signer_id AS account_id,
            count(DISTINCT (b."timestamp" AT TIME ZONE 'UTC')::date)::text AS value
       FROM tx t JOIN block b ON b.height = t.height
      WHERE ${IN_WINDOW} AND ${CODE_SQL} = 0
      GROUP BY t.signer_id`,
    [w.lo, w.hi],
  );
}

/** Account bytes of dictionary ids. */
export async function accountsById(db: Queryable, ids: readonly number[]): Promise<Map<number, Uint8Array>> {
  const out = new Map<number, Uint8Array>();
  for (let i = 0; i < ids.length; i += 50_000) {
    const { rows } = await db.query<{ id: number; account: Uint8Array }>(
      'SELECT id, account FROM account_dict WHERE id = ANY($1::bigint[])',
      [ids.slice(i, i + 50_000)],
    );
    for (const r of rows) out.set(Number(r.id), new Uint8Array(r.account));
  }
  return out;
}

/**
 * NFTs received per recipient over heights [from, to] (nft_receipt): mints (`minted`) or
 * transfers, optionally of one collection.
 */
export function nftReceipts(
  db: Queryable,
  heights: { from: number; to: number },
  minted: boolean,
  collection?: Uint8Array,
) {
  const inCollection = collection ? 'JOIN nft_dict d ON d.id = r.nft_id AND d.collection_addr = $4' : '';
  return aggregate(
    db,
    `SELECT r.to_id AS account_id, count(*)::text AS value FROM nft_receipt r ${inCollection}
      WHERE r.height BETWEEN $1 AND $2 AND r.minted = $3 GROUP BY r.to_id`,
    collection
      ? [heights.from, heights.to, minted, Buffer.from(collection)]
      : [heights.from, heights.to, minted],
  );
}

/** First height whose NFT receipts are recorded (migrations/20261126_0011_nft_receipts.sql; no row: all). */
export async function nftReceiptsFrom(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ from_height: number }>('SELECT from_height FROM nft_receipt_coverage');
  return Number(rows[0]?.from_height ?? 1);
}
