import type { Queryable } from '../driver/db.js';
import { storedText, storedTextColumns } from './stored-json.js';

/**
 * The rows the block pipeline stored for some heights, in the form `verify` compares with what the
 * node says today (docs/ingest.md §11.1): hashes and accounts as lowercase hex, times as
 * PostgreSQL renders them, each tx with its account edges and message types.
 */
export interface StoredBlock {
  height: number;
  hash: string;
  timestamp: string;
  blockTimeMs: number;
  proposer: string;
  gasUsed: string;
  gasWanted: string;
  txCount: number;
  totalFee: string;
}

export interface StoredTx {
  sequence: number;
  height: number;
  hash: string;
  signer: string;
  data: string;
  /** `account:signer` per edge (hex, `true|false`), sorted. */
  edges: string[];
  /** Message types (Cosmos txs only), sorted. */
  msgTypes: string[];
}

export interface StoredHeights {
  blocks: Map<number, StoredBlock>;
  /** Per height, in sequence order. */
  txs: Map<number, StoredTx[]>;
  evmTxs: Map<number, StoredTx[]>;
}

/** The stored blocks, txs and EVM txs of `heights` (any set of heights, three statements). */
export async function readStoredHeights(db: Queryable, heights: readonly number[]): Promise<StoredHeights> {
  const { rows: blocks } = await db.query<StoredBlock & { height: string | number; blockTimeMs: unknown }>(
    `SELECT height, encode(hash, 'hex') AS hash, to_json("timestamp")#>>'{}' AS "timestamp",
            block_time_ms AS "blockTimeMs", proposer, gas_used::text AS "gasUsed",
            gas_wanted::text AS "gasWanted", tx_count AS "txCount", total_fee AS "totalFee"
       FROM block WHERE height = ANY($1::bigint[])`,
    [heights],
  );
  return {
    blocks: new Map(
      blocks.map((b) => [
        Number(b.height),
        { ...b, height: Number(b.height), blockTimeMs: Number(b.blockTimeMs) },
      ]),
    ),
    txs: await readTxs(db, heights, { main: 'tx', edges: 'tx_accounts', types: true }),
    evmTxs: await readTxs(db, heights, { main: 'evm_tx', edges: 'evm_tx_accounts', types: false }),
  };
}

async function readTxs(
  db: Queryable,
  heights: readonly number[],
  tables: { main: 'tx' | 'evm_tx'; edges: 'tx_accounts' | 'evm_tx_accounts'; types: boolean },
): Promise<Map<number, StoredTx[]>> {
  const { rows } = await db.query<{
    sequence: string | number;
    height: string | number;
    hash: string;
    signer: string;
    data: string | null;
    data_packed?: Uint8Array | null;
  }>(
    `SELECT t.sequence, t.height, encode(t.hash, 'hex') AS hash, encode(s.account, 'hex') AS signer,
            ${storedTextColumns(tables.main, 't')}
       FROM ${tables.main} t JOIN account_dict s ON s.id = t.signer_id
      WHERE t.height = ANY($1::bigint[]) ORDER BY t.sequence`,
    [heights],
  );
  const txs = rows.map((row) => ({
    sequence: Number(row.sequence),
    height: Number(row.height),
    hash: row.hash,
    signer: row.signer,
    data: storedText(row).toString(),
    edges: [] as string[],
    msgTypes: [] as string[],
  }));
  const ranges = sequenceRanges(txs.map((t) => t.sequence));
  const bySequence = new Map(txs.map((t) => [t.sequence, t]));
  for (const edge of await readBySequence(
    db,
    ranges,
    `encode(d.account, 'hex') || ':' || e.signer::text`,
    `${tables.edges} e JOIN account_dict d ON d.id = e.account_id`,
  )) {
    bySequence.get(edge.sequence)?.edges.push(edge.value);
  }
  if (tables.types) {
    const types = await readBySequence(
      db,
      ranges,
      'd.msg_type',
      'tx_msg_types e JOIN msg_type_dict d ON d.id = e.msg_type_id',
    );
    for (const type of types) bySequence.get(type.sequence)?.msgTypes.push(type.value);
  }
  const byHeight = new Map<number, StoredTx[]>();
  for (const tx of txs) {
    tx.edges.sort();
    tx.msgTypes.sort();
    byHeight.set(tx.height, [...(byHeight.get(tx.height) ?? []), tx]);
  }
  return byHeight;
}

/** Runs of consecutive sequences as [first, last] pairs: the edge tables are read by range. */
function sequenceRanges(sequences: readonly number[]): { lo: number[]; hi: number[] } {
  const lo: number[] = [];
  const hi: number[] = [];
  for (const s of sequences) {
    if (hi.length > 0 && hi[hi.length - 1] === s - 1) {
      hi[hi.length - 1] = s;
    } else {
      lo.push(s);
      hi.push(s);
    }
  }
  return { lo, hi };
}

/**
 * One value per edge row of sequences in `ranges`. The edge tables are keyed by account first;
 * their BRIN index on sequence (migration 0017) finds a range's rows without a scan of the table.
 */
async function readBySequence(
  db: Queryable,
  ranges: { lo: number[]; hi: number[] },
  value: string,
  from: string,
): Promise<{ sequence: number; value: string }[]> {
  if (ranges.lo.length === 0) return [];
  const { rows } = await db.query<{ sequence: string | number; value: string }>(
    `SELECT e.sequence, ${value} AS value
       FROM unnest($1::bigint[], $2::bigint[]) AS r(lo, hi) JOIN ${from} ON e.sequence BETWEEN r.lo AND r.hi`,
    [ranges.lo, ranges.hi],
  );
  return rows.map((r) => ({ sequence: Number(r.sequence), value: r.value }));
}

/** Each RFC 3339 time as PostgreSQL stores and renders it (microseconds, UTC), to compare with stored. */
export async function normaliseTimes(db: Queryable, times: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ t: string }>(
    `SELECT to_json(t)#>>'{}' AS t FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, i) ORDER BY i`,
    [times],
  );
  return rows.map((r) => r.t);
}

/** The lowest stored block height (0 when none) and the block checkpoint. */
export async function readStoredBounds(db: Queryable): Promise<{ lowest: number; indexed: number }> {
  const { rows } = await db.query<{ low: string | null; high: string | null }>(
    `SELECT (SELECT min(height) FROM block)::text AS low,
            (SELECT height FROM checkpoint WHERE stream = 'blocks')::text AS high`,
  );
  return { lowest: Number(rows[0]?.low ?? 0), indexed: Number(rows[0]?.high ?? 0) };
}
