import { storedTxCode, storedTxGasUsed } from '../../wire/tx.js';
import type { Queryable } from '../driver/db.js';
import { storedText, storedTextColumns, type StoredTextRow } from './stored-json.js';

/**
 * VIP score metrics over a window's txs (docs/vip-scores.md). The window is a tx sequence range
 * found through tx_height_idx; its rows are read by primary key in batches, their stored texts
 * unpacked (docs/ingest.md §9.2) and aggregated here, one (account, value) row per address out.
 *
 *  - `code` and `gas_used` are read by position, as the tx document's module says is safe
 *    (src/wire/tx.ts: storedTxCode, storedTxGasUsed);
 *  - fees and messages by parsing the text, only for the metrics that need them and, for
 *    messages, only for txs holding the message type (tx_msg_types' primary key finds them). A
 *    position search is not safe there: the tx body, written before auth_info, holds user JSON (a
 *    Wasm msg) that could fake a fee object.
 */

const BATCH_ROWS = 2_000;

export interface ScoreMetricRow {
  accountId: number;
  /** Exact decimal text. */
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

interface WindowTx {
  signerId: number;
  /** The stored text. */
  text: string;
  /** UTC date of the tx's block (with `days`). */
  day?: string;
}

/**
 * The window's txs in sequence order, a batch at a time; `types`: only those holding a message of
 * one of these types (stored without the leading '/').
 */
async function eachWindowTx(
  db: Queryable,
  w: SequenceRange,
  visit: (tx: WindowTx) => void,
  o: { types?: readonly string[]; days?: boolean } = {},
): Promise<void> {
  const day = o.days ? `, to_char(b."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day` : '';
  const join = o.days ? ' JOIN block b ON b.height = t.height' : '';
  const typed = o.types
    ? ` AND t.sequence IN (SELECT e.sequence FROM tx_msg_types e JOIN msg_type_dict d ON d.id = e.msg_type_id
         WHERE d.msg_type = ANY($3::text[]) AND e.sequence BETWEEN $1 AND $2)`
    : '';
  for (let lo = w.lo; lo <= w.hi; lo += BATCH_ROWS) {
    const hi = Math.min(w.hi, lo + BATCH_ROWS - 1);
    const { rows } = await db.query<StoredTextRow & { signer_id: number; day?: string }>(
      `SELECT t.signer_id, ${storedTextColumns('tx', 't')}${day} FROM tx t${join}
        WHERE t.sequence BETWEEN $1 AND $2${typed} ORDER BY t.sequence`,
      o.types ? [lo, hi, [...o.types]] : [lo, hi],
    );
    for (const r of rows) {
      visit({
        signerId: Number(r.signer_id),
        text: storedText(r).toString(),
        ...(r.day === undefined ? {} : { day: r.day }),
      });
    }
  }
}

/** Sums per account (bigint), out as decimal text. */
class AccountSums {
  private readonly sums = new Map<number, bigint>();
  add(accountId: number, value: bigint): void {
    this.sums.set(accountId, (this.sums.get(accountId) ?? 0n) + value);
  }
  rows(): ScoreMetricRow[] {
    return [...this.sums].map(([accountId, v]) => ({ accountId, value: v.toString() }));
  }
}

/** Successful txs signed (first signer) per account. */
export async function txsSigned(db: Queryable, w: SequenceRange): Promise<ScoreMetricRow[]> {
  const sums = new AccountSums();
  await eachWindowTx(db, w, (tx) => {
    if (storedTxCode(tx.text) === 0) sums.add(tx.signerId, 1n);
  });
  return sums.rows();
}

/** Gas used by every tx (failed ones too), charged to the fee payer (first signer). */
export async function gasUsed(db: Queryable, w: SequenceRange): Promise<ScoreMetricRow[]> {
  const sums = new AccountSums();
  await eachWindowTx(db, w, (tx) => sums.add(tx.signerId, storedTxGasUsed(tx.text)));
  return sums.rows();
}

interface TxJson {
  tx?: {
    auth_info?: { fee?: { amount?: { denom?: unknown; amount?: unknown }[] } };
    body?: { messages?: unknown[] };
  };
}

/** Fee amounts of one denom over every tx (failed ones too), charged to the fee payer. */
export async function feesPaid(db: Queryable, w: SequenceRange, denom: string): Promise<ScoreMetricRow[]> {
  const sums = new AccountSums();
  await eachWindowTx(db, w, (tx) => {
    const coins = (JSON.parse(tx.text) as TxJson).tx?.auth_info?.fee?.amount ?? [];
    for (const coin of coins) {
      if (coin.denom === denom) sums.add(tx.signerId, BigInt(String(coin.amount)));
    }
  });
  return sums.rows();
}

/** A condition on one message (its JSON) beyond its type. */
export type MessageFilter = (message: Record<string, unknown>) => boolean;

/**
 * Successful txs holding at least one message of the given types (and matching the filter) per
 * signer. Types are stored without the leading '/'.
 */
export async function msgTxs(
  db: Queryable,
  w: SequenceRange,
  types: readonly string[],
  filter?: MessageFilter,
): Promise<ScoreMetricRow[]> {
  const typeUrls = new Set(types.map((t) => `/${t}`));
  const sums = new AccountSums();
  await eachWindowTx(
    db,
    w,
    (tx) => {
      if (storedTxCode(tx.text) !== 0) return;
      if (filter) {
        const messages = (JSON.parse(tx.text) as TxJson).tx?.body?.messages ?? [];
        const match = messages.some((m) => {
          if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
          const message = m as Record<string, unknown>;
          return typeUrls.has(String(message['@type'])) && filter(message);
        });
        if (!match) return;
      }
      sums.add(tx.signerId, 1n);
    },
    { types },
  );
  return sums.rows();
}

/** Distinct UTC dates with at least one successful signed tx. */
export async function activeDays(db: Queryable, w: SequenceRange): Promise<ScoreMetricRow[]> {
  const days = new Map<number, Set<string>>();
  await eachWindowTx(
    db,
    w,
    (tx) => {
      if (storedTxCode(tx.text) !== 0 || tx.day === undefined) return;
      const set = days.get(tx.signerId) ?? new Set<string>();
      set.add(tx.day);
      days.set(tx.signerId, set);
    },
    { days: true },
  );
  return [...days].map(([accountId, set]) => ({ accountId, value: String(set.size) }));
}

async function aggregate(db: Queryable, sql: string, params: readonly unknown[]): Promise<ScoreMetricRow[]> {
  const { rows } = await db.query<{ account_id: number; value: string }>(sql, params);
  return rows.map((r) => ({ accountId: Number(r.account_id), value: String(r.value) }));
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
