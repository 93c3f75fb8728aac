import { COMMIT_CHANNEL } from '../../shared/commit-feed.js';
import { AppError } from '../../shared/errors.js';
import type { Db, Queryable } from '../driver/db.js';
import { insertAccountEdges, type AccountEdges, type EdgeTables } from './account-edges.js';
import { addTypeSetCounts } from './type-set-counts.js';
import {
  asBuffer,
  createAccountDictionary,
  createDictionary,
  hexKey,
  uniqueBytes,
  type Dictionary,
} from './dictionary.js';
import { nftAccounts, writeNftBlocks } from './nft-writer.js';
import { sqlArray } from './sql-array.js';
import type { BlockRows, Checkpoint } from './rows.js';
import {
  accountEdges,
  BLOCK_COLUMNS,
  blockRowValues,
  msgTypeEdges,
  nftInputs,
  txTextColumn,
  type TxRowInput,
} from './tx-rows.js';

export const BLOCK_PIPELINE_CHECKPOINT = 'blocks';

export interface BlockWriter {
  /** The committed checkpoint (height 0 when nothing is indexed yet). */
  checkpoint(): Checkpoint;
  /**
   * Writes consecutive blocks (checkpoint.height + 1, + 2, ...) and the new checkpoint in ONE
   * transaction: after a crash at any instant, either all of them are stored or none.
   */
  write(blocks: readonly BlockRows[]): Promise<void>;
  /** On an empty database only: begin at `height` instead of 1 (mid-chain start, pruned node). */
  startAt(height: number): Promise<void>;
  /**
   * Re-reads the committed checkpoint: after a write failed with the connection lost, the commit
   * may or may not have happened, and only the database knows.
   */
  resync(): Promise<Checkpoint>;
}

/** Reads the checkpoint (creating it) and returns a writer that continues from it. */
export async function createBlockWriter(
  db: Db,
  options: { maxCachedAccounts?: number } = {},
): Promise<BlockWriter> {
  let current = await loadCheckpoint(db);
  const dicts = createWriterDictionaries(options.maxCachedAccounts);
  const { accounts, msgTypes } = dicts;

  return {
    checkpoint: () => current,
    async resync() {
      current = await loadCheckpoint(db);
      return current;
    },
    async startAt(height) {
      if (current.height !== 0 || current.txSequence !== 0) {
        throw new AppError('not_empty', `cannot start at ${height}: the database already holds blocks`);
      }
      await db.query('UPDATE checkpoint SET height = $2 WHERE stream = $1 AND height = 0', [
        BLOCK_PIPELINE_CHECKPOINT,
        height - 1,
      ]);
      current = { ...current, height: height - 1 };
    },
    async write(blocks) {
      if (blocks.length === 0) return;
      blocks.forEach((b, i) => {
        if (b.block.height !== current.height + 1 + i) {
          throw new AppError(
            'out_of_order',
            `write expected height ${current.height + 1 + i}, got ${b.block.height}`,
          );
        }
      });
      try {
        const next = await db.transaction((tx) => writeInTransaction(tx, blocks, current, dicts));
        accounts.commit();
        msgTypes.commit();
        current = next;
      } catch (err) {
        accounts.discard();
        msgTypes.discard();
        throw err;
      }
    },
  };
}

async function loadCheckpoint(db: Db): Promise<Checkpoint> {
  await db.query(`INSERT INTO checkpoint (stream, height) VALUES ($1, 0) ON CONFLICT (stream) DO NOTHING`, [
    BLOCK_PIPELINE_CHECKPOINT,
  ]);
  const { rows } = await db.query<{
    height: number;
    block_hash: Uint8Array | null;
    tx_sequence: number;
    evm_sequence: number;
    ts: string | null;
  }>(
    `SELECT c.height, c.block_hash, c.tx_sequence, c.evm_sequence, to_json(b."timestamp")#>>'{}' AS ts
       FROM checkpoint c LEFT JOIN block b ON b.height = c.height WHERE c.stream = $1`,
    [BLOCK_PIPELINE_CHECKPOINT],
  );
  const row = rows[0]!;
  return {
    height: row.height,
    blockHash: row.block_hash,
    txSequence: row.tx_sequence,
    evmSequence: row.evm_sequence,
    blockTimestamp: row.ts,
  };
}

export interface WriterDictionaries {
  accounts: Dictionary<Uint8Array>;
  msgTypes: Dictionary<string>;
}

/** The writer's dictionaries (their ids are cached once the transaction that interned them commits). */
export function createWriterDictionaries(maxCachedAccounts = 200_000): WriterDictionaries {
  return {
    accounts: createAccountDictionary(maxCachedAccounts),
    msgTypes: createDictionary<string>({
      table: 'msg_type_dict',
      column: 'msg_type',
      sqlType: 'text',
      cacheKey: (k) => k,
      maxCached: 10_000,
    }),
  };
}

async function writeInTransaction(
  tx: Queryable,
  blocks: readonly BlockRows[],
  from: Checkpoint,
  dicts: WriterDictionaries,
): Promise<Checkpoint> {
  const { txSequence, evmSequence } = await insertBlockRows(tx, blocks, from, dicts);
  const last = blocks[blocks.length - 1]!.block;
  // Guarded on the previous height: a second writer on the same database fails here instead of
  // interleaving rows.
  // The same statement announces the commit to API processes that LISTEN (live streams): a
  // NOTIFY in a transaction is delivered only if it commits, and costs no extra round trip. The
  // payload names the chain's schema: a deployment's chains share their database's channel.
  const { rows } = await tx.query(
    `WITH moved AS (
       UPDATE checkpoint SET height = $2, block_hash = $3, tx_sequence = $4, evm_sequence = $5, updated_at = now()
        WHERE stream = $1 AND height = $6 RETURNING height)
     SELECT height, pg_notify('${COMMIT_CHANNEL}', current_schema() || ':' || height::text) FROM moved`,
    [BLOCK_PIPELINE_CHECKPOINT, last.height, asBuffer(last.hash), txSequence, evmSequence, from.height],
  );
  if (rows.length !== 1) {
    throw new AppError(
      'concurrent_writer',
      `checkpoint moved under us (expected height ${from.height}); is another indexer writing?`,
    );
  }
  return {
    height: last.height,
    blockHash: last.hash,
    txSequence,
    evmSequence,
    blockTimestamp: last.timestamp,
  };
}

/**
 * The rows of consecutive blocks under the sequences after `from`'s: blocks, txs and EVM txs with
 * their edges and counts, NFT rows, monikers. The block pipeline adds its checkpoint; `reindex`
 * writes the same rows again under the sequences they had (docs/ingest.md §11.2).
 */
export async function insertBlockRows(
  tx: Queryable,
  blocks: readonly BlockRows[],
  from: { txSequence: number; evmSequence: number },
  dicts: WriterDictionaries,
): Promise<{ txSequence: number; evmSequence: number }> {
  const { allTxs, allEvm, idOf, msgTypeIds } = await internBatch(tx, blocks, dicts);
  await insertBlocks(tx, blocks);
  const txSequence = await insertTxs(tx, allTxs, from.txSequence, idOf, msgTypeIds);
  const evmSequence = await insertEvmTxs(tx, allEvm, from.evmSequence, idOf);
  await writeNftBlocks(tx, nftInputs(blocks, from.txSequence), idOf);
  await upsertValidators(tx, blocks);
  return { txSequence, evmSequence };
}

/** A batch's txs, with the ids of every account and message type it names (interned in `tx`). */
export async function internBatch(tx: Queryable, blocks: readonly BlockRows[], dicts: WriterDictionaries) {
  const allTxs = blocks.flatMap((b) => b.txs);
  const allEvm = blocks.flatMap((b) => b.evmTxs);
  const accountIds = await dicts.accounts.resolve(
    tx,
    uniqueBytes([
      ...[...allTxs, ...allEvm].flatMap((t) => [t.signer, ...t.accounts]),
      ...nftAccounts(blocks.flatMap((b) => (b.nft ? [b.nft] : []))),
    ]),
  );
  const msgTypeIds = await dicts.msgTypes.resolve(tx, new Set(allTxs.flatMap((t) => t.msgTypes)));
  const idOf = (bytes: Uint8Array) => accountIds.get(hexKey(bytes))!;
  return { allTxs, allEvm, idOf, msgTypeIds };
}

/** The proposer monikers the batch's blocks learnt. */
export async function upsertValidators(tx: Queryable, blocks: readonly BlockRows[]): Promise<void> {
  for (const b of blocks) {
    if (!b.validator) continue;
    await tx.query(
      `INSERT INTO validator (operator_address, moniker) VALUES ($1, $2)
       ON CONFLICT (operator_address) DO UPDATE SET moniker = EXCLUDED.moniker`,
      [b.validator.operatorAddress, b.validator.moniker],
    );
  }
}

async function insertBlocks(tx: Queryable, blocks: readonly BlockRows[]): Promise<void> {
  const rows = blocks.map((x) => blockRowValues(x.block));
  await tx.query(
    `INSERT INTO block (${BLOCK_COLUMNS.join(', ')})
     SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::timestamptz[], $4::bigint[], $5::text[], $6::bigint[],
                          $7::bigint[], $8::int[], $9::text[])`,
    BLOCK_COLUMNS.map((_, i) => rows.map((r) => r[i])),
  );
}

const COSMOS_TABLES: EdgeTables & { main: 'tx' } = {
  main: 'tx',
  edges: 'tx_accounts',
  counts: 'tx_account_counts',
};
const EVM_TABLES: EdgeTables & { main: 'evm_tx' } = {
  main: 'evm_tx',
  edges: 'evm_tx_accounts',
  counts: 'evm_tx_account_counts',
};

/** Rows under the next gapless sequences, with their account edges and counts; returns both. */
async function insertSequenced(
  tx: Queryable,
  tables: EdgeTables & { main: 'tx' | 'evm_tx' },
  rows: BlockRows['txs'] | BlockRows['evmTxs'],
  fromSequence: number,
  idOf: (bytes: Uint8Array) => number,
): Promise<{ seqs: number[]; edges: AccountEdges }> {
  const seqs = rows.map((_, i) => fromSequence + 1 + i);
  await insertTxRows(tx, tables.main, rows, seqs, idOf);
  const edges = accountEdges(rows, seqs, idOf);
  await insertAccountEdges(tx, tables, edges);
  return { seqs, edges };
}

async function insertTxs(
  tx: Queryable,
  txs: BlockRows['txs'],
  fromSequence: number,
  idOf: (bytes: Uint8Array) => number,
  msgTypeIds: Map<string, number>,
): Promise<number> {
  if (txs.length === 0) return fromSequence;
  const { seqs, edges } = await insertSequenced(tx, COSMOS_TABLES, txs, fromSequence, idOf);
  await insertUndecodedMarks(tx, txs, seqs);
  const { typeEdges, cross } = msgTypeEdges(txs, seqs, msgTypeIds, edges);
  const typeArrays = { typeIds: sqlArray(typeEdges.typeIds), seqs: sqlArray(typeEdges.seqs) };
  await tx.query(
    `INSERT INTO tx_msg_types (msg_type_id, sequence) SELECT * FROM unnest($1::int[], $2::bigint[])`,
    [typeArrays.typeIds, typeArrays.seqs],
  );
  await addTypeSetCounts(tx, typeArrays, edges);
  await tx.query(
    `INSERT INTO tx_account_msg_types (account_id, msg_type_id, sequence, signer)
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::bool[])`,
    [sqlArray(cross.accounts), sqlArray(cross.types), sqlArray(cross.seqs), sqlArray(cross.signer)],
  );
  return fromSequence + txs.length;
}

/** Txs stored undecoded keep their raw bytes beside their row (docs/api.md §14). */
async function insertUndecodedMarks(
  tx: Queryable,
  txs: BlockRows['txs'],
  seqs: readonly number[],
): Promise<void> {
  const marked = txs.flatMap((t, i) => (t.undecodedRaw ? [{ seq: seqs[i]!, raw: t.undecodedRaw }] : []));
  if (marked.length === 0) return;
  await tx.query('INSERT INTO undecoded_tx (sequence, raw) SELECT * FROM unnest($1::bigint[], $2::bytea[])', [
    marked.map((m) => m.seq),
    marked.map((m) => asBuffer(m.raw)),
  ]);
}

async function insertEvmTxs(
  tx: Queryable,
  txs: BlockRows['evmTxs'],
  fromSequence: number,
  idOf: (bytes: Uint8Array) => number,
): Promise<number> {
  if (txs.length === 0) return fromSequence;
  await insertSequenced(tx, EVM_TABLES, txs, fromSequence, idOf);
  return fromSequence + txs.length;
}

/** Rows per INSERT: 5 parameters each, well under PostgreSQL's 65,535-parameter limit. */
const TX_ROWS_PER_STATEMENT = 2_000;

/**
 * tx / evm_tx rows go as plain parameters of a multi-row VALUES list rather than UNNEST arrays:
 * the JSON text is large, and array literals would escape every quote of it on the way out.
 */
async function insertTxRows(
  tx: Queryable,
  table: 'tx' | 'evm_tx',
  rows: readonly TxRowInput[],
  seqs: readonly number[],
  idOf: (bytes: Uint8Array) => number,
): Promise<void> {
  const text = txTextColumn(table);
  const type = text.column === 'data_packed' ? 'bytea' : 'text';
  const column = text.column;
  for (let start = 0; start < rows.length; start += TX_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + TX_ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    const tuples = chunk.map((r, i) => {
      params.push(seqs[start + i], asBuffer(r.hash), r.height, idOf(r.signer), text.value(r));
      const p = i * 5;
      return `($${p + 1}::bigint, $${p + 2}::bytea, $${p + 3}::bigint, $${p + 4}::bigint, $${p + 5}::${type})`;
    });
    await tx.query(
      `INSERT INTO ${table} (sequence, hash, height, signer_id, ${column}) VALUES ${tuples.join(',')}`,
      params,
    );
  }
}
