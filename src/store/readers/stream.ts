import type { ReaderContext } from './context.js';
import { storedText, storedTextColumns, type StoredTextRow } from './stored-json.js';

/**
 * Short reads behind the live streams (docs/stream.md): where the block stream's checkpoint is,
 * and the rows committed in a range of heights or sequences. Every statement is bounded by its
 * range and a row limit, so a stream never holds a long statement.
 */

/** The committed position: what a stream may send, and no further. */
export interface StreamPosition {
  height: number;
  txSequence: number;
  evmSequence: number;
  /** When the checkpoint moved (ms since the epoch): the start of delivery latency. */
  committedAtMs: number;
  /**
   * The account and message-type dictionaries' sequence values, read in the same statement after
   * its snapshot: it changes whenever either dictionary may have grown (see api/stream/dictionary-ids).
   * Undefined when the session may not read the sequences (a role granted only the tables).
   */
  dictionaryMark: string | undefined;
}

/** One committed row in sequence order, with its rendered JSON. */
export interface SequencedRow {
  sequence: number;
  height: number;
  data: string;
}

/** An account or message-type edge of one tx, for matching filters in memory. */
export interface TxEdge {
  sequence: number;
  /** account id or message type id */
  id: number;
  signer: boolean;
}

export type TxFamily = 'tx' | 'evm_tx';

/** What a filtered stream selects; ids are resolved (an unknown account or type selects nothing). */
export interface ReplayFilter {
  accountId?: number;
  signerOnly: boolean;
  msgTypeIds?: readonly number[];
}

export interface StreamReader {
  position(): Promise<StreamPosition | undefined>;
  /** Rows with after < sequence ≤ upto, at most `limit`, ascending. */
  rows(family: TxFamily, after: number, upto: number, limit: number): Promise<SequencedRow[]>;
  /** Account edges of the given accounts in after < sequence ≤ upto. */
  accountEdges(
    family: TxFamily,
    accountIds: readonly number[],
    after: number,
    upto: number,
  ): Promise<TxEdge[]>;
  /** Message-type edges (Cosmos txs) of the given types in after < sequence ≤ upto. */
  msgTypeEdges(msgTypeIds: readonly number[], after: number, upto: number): Promise<TxEdge[]>;
  /**
   * Stored rows after a resume point that a filtered stream would have sent, ascending, at most
   * `limit`: one bounded index range per account or message type (never a scan of the table).
   */
  replaySequences(
    family: TxFamily,
    filter: ReplayFilter,
    after: number,
    upto: number,
    limit: number,
  ): Promise<number[]>;
  /** The rows of the given sequences, ascending. */
  rowsAt(family: TxFamily, sequences: readonly number[]): Promise<SequencedRow[]>;
  /** Message type ids by name, for the names that exist. */
  msgTypeIds(names: readonly string[]): Promise<Map<string, number>>;
  /** Ids of the accounts that exist, by lower-case hex of their bytes. */
  accountIds(accounts: readonly Uint8Array[]): Promise<Map<string, number>>;
  /** First sequence at or above a height (undefined when none is stored). */
  firstSequenceFrom(family: TxFamily, height: number): Promise<number | undefined>;
}

const ACCOUNT_EDGES: Record<TxFamily, string> = { tx: 'tx_accounts', evm_tx: 'evm_tx_accounts' };

/** The committed checkpoint, with the dictionaries' sequence mark where this session may read it. */
async function readStreamPosition(db: ReaderContext['db']): Promise<StreamPosition | undefined> {
  const { rows } = await db.query<{ h: number; t: number; e: number; at: number; mark: string | null }>(
    `SELECT height AS h, tx_sequence AS t, evm_sequence AS e,
            (extract(epoch FROM updated_at) * 1000)::float8 AS at,
            CASE WHEN has_sequence_privilege(s.a, 'SELECT,USAGE') AND has_sequence_privilege(s.m, 'SELECT,USAGE')
              THEN coalesce(pg_sequence_last_value(s.a), 0) || ':' || coalesce(pg_sequence_last_value(s.m), 0)
            END AS mark
       FROM checkpoint,
            (SELECT pg_get_serial_sequence('account_dict', 'id')::regclass AS a,
                    pg_get_serial_sequence('msg_type_dict', 'id')::regclass AS m) s
      WHERE stream = 'blocks'`,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    height: Number(row.h),
    txSequence: Number(row.t),
    evmSequence: Number(row.e),
    committedAtMs: Number(row.at),
    dictionaryMark: row.mark ?? undefined,
  };
}

async function msgTypeIdsOf(db: ReaderContext['db'], names: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (names.length === 0) return found;
  const { rows } = await db.query<{ id: number; msg_type: string }>(
    'SELECT id, msg_type FROM msg_type_dict WHERE msg_type = ANY($1::text[])',
    [names],
  );
  for (const row of rows) found.set(row.msg_type, Number(row.id));
  return found;
}

async function accountIdsOf(
  db: ReaderContext['db'],
  accounts: readonly Uint8Array[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (accounts.length === 0) return found;
  // A join with the asked accounts, not `account = ANY($1)`: asked again whenever the dictionary
  // grows (each block of a busy chain), with ~450 never-seen subscribed accounts, the ANY form took
  // 54 ms a call over the first minutes of a 10-minute live run and 186 ms by its end, growing with
  // the dictionary; this join took 1.6 ms in the same bench (docs/benchmarks.md, minievm-speed chain).
  const { rows } = await db.query<{ id: number; account: Uint8Array }>(
    `SELECT d.id, d.account FROM unnest($1::bytea[]) AS asked(account)
       JOIN account_dict d ON d.account = asked.account`,
    [accounts.map((a) => Buffer.from(a))],
  );
  for (const row of rows) found.set(Buffer.from(row.account).toString('hex'), Number(row.id));
  return found;
}

type StoredRow = StoredTextRow & { sequence: number; height: number };

function sequencedRow(r: StoredRow): SequencedRow {
  return { sequence: Number(r.sequence), height: Number(r.height), data: storedText(r).toString() };
}

export function createStreamReader(ctx: Pick<ReaderContext, 'db'>): StreamReader {
  const { db } = ctx;
  return {
    position: () => readStreamPosition(db),
    async rows(family, after, upto, limit) {
      const { rows } = await db.query<StoredRow>(
        `SELECT sequence, height, ${storedTextColumns(family)} FROM ${family}
          WHERE sequence > $1 AND sequence <= $2 ORDER BY sequence LIMIT ${Math.trunc(limit)}`,
        [after, upto],
      );
      return rows.map(sequencedRow);
    },
    async accountEdges(family, accountIds, after, upto) {
      if (accountIds.length === 0) return [];
      const { rows } = await db.query<TxEdge>(
        `SELECT sequence, account_id AS id, signer FROM ${ACCOUNT_EDGES[family]}
          WHERE account_id = ANY($1::bigint[]) AND sequence > $2 AND sequence <= $3`,
        [accountIds, after, upto],
      );
      return rows.map((r) => ({ sequence: Number(r.sequence), id: Number(r.id), signer: r.signer }));
    },
    async msgTypeEdges(msgTypeIds, after, upto) {
      if (msgTypeIds.length === 0) return [];
      const { rows } = await db.query<TxEdge>(
        `SELECT sequence, msg_type_id AS id, false AS signer FROM tx_msg_types
          WHERE msg_type_id = ANY($1::int[]) AND sequence > $2 AND sequence <= $3`,
        [msgTypeIds, after, upto],
      );
      return rows.map((r) => ({ sequence: Number(r.sequence), id: Number(r.id), signer: false }));
    },
    async replaySequences(family, filter, after, upto, limit) {
      const { sql, params } = replaySelection(family, filter, after, upto, Math.trunc(limit));
      const { rows } = await db.query<{ sequence: number }>(sql, params);
      return rows.map((r) => Number(r.sequence));
    },
    async rowsAt(family, sequences) {
      if (sequences.length === 0) return [];
      const { rows } = await db.query<StoredRow>(
        `SELECT sequence, height, ${storedTextColumns(family)} FROM ${family} WHERE sequence = ANY($1::bigint[]) ORDER BY sequence`,
        [sequences],
      );
      return rows.map(sequencedRow);
    },
    msgTypeIds: (names) => msgTypeIdsOf(db, names),
    accountIds: (accounts) => accountIdsOf(db, accounts),
    async firstSequenceFrom(family, height) {
      const { rows } = await db.query<{ sequence: number }>(
        `SELECT sequence FROM ${family} WHERE height >= $1 ORDER BY height, sequence LIMIT 1`,
        [height],
      );
      return rows[0] === undefined ? undefined : Number(rows[0].sequence);
    },
  };
}

/** The sequences a filter selects in (after, upto], as a sub-select of at most n rows. */
function replaySelection(
  family: TxFamily,
  filter: ReplayFilter,
  after: number,
  upto: number,
  n: number,
): { sql: string; params: unknown[] } {
  const signer = filter.signerOnly ? ' AND signer' : '';
  if (filter.msgTypeIds === undefined) {
    if (filter.accountId === undefined) {
      return {
        sql: `SELECT sequence FROM ${family} WHERE sequence > $1 AND sequence <= $2 ORDER BY sequence LIMIT ${n}`,
        params: [after, upto],
      };
    }
    return {
      sql: `SELECT sequence FROM ${ACCOUNT_EDGES[family]} WHERE account_id = $3 AND sequence > $1 AND sequence <= $2${signer} ORDER BY sequence LIMIT ${n}`,
      params: [after, upto, filter.accountId],
    };
  }
  // One bounded range per message type (as the list routes do), merged: cheap however popular a
  // type is elsewhere in the chain.
  const params: unknown[] = [after, upto, filter.msgTypeIds];
  let edges = 'tx_msg_types WHERE true';
  if (filter.accountId !== undefined) {
    params.push(filter.accountId);
    edges = `tx_account_msg_types WHERE account_id = $4${signer}`;
  }
  return {
    sql:
      `SELECT DISTINCT s.sequence FROM unnest($3::int[]) AS mt(id) CROSS JOIN LATERAL ` +
      `(SELECT sequence FROM ${edges} AND msg_type_id = mt.id AND sequence > $1 AND sequence <= $2 ` +
      `ORDER BY sequence LIMIT ${n}) s ORDER BY s.sequence LIMIT ${n}`,
    params,
  };
}
