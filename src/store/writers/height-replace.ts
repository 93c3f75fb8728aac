import { AppError } from '../../shared/errors.js';
import type { Db, Queryable } from '../driver/db.js';
import { asBuffer } from './dictionary.js';
import { BLOCK_PIPELINE_CHECKPOINT, insertBlockRows, type WriterDictionaries } from './block-writer.js';
import type { BlockRows } from './rows.js';
import { sqlArray } from './sql-array.js';
import { bumpStoreGeneration } from './store-generation.js';

/**
 * One batch of `reindex` (docs/ingest.md §11.2): the block-pipeline rows of consecutive stored
 * heights replaced by the rows a fresh index writes for them, in one transaction with the job's
 * checkpoint and a bump of `store_generation` (docs/api.md §1.9). Every aggregate the old rows
 * added to is taken back first — per-account counts, per type-set counts — and the new rows add
 * theirs through the block writer's own code, under the sequences the old rows had, so rows of
 * later heights (and NFT edges, which name sequences) stay valid. What spans heights beyond the
 * batch is the next block's `block_time_ms` and the checkpoint's hash, both set here too.
 */
export interface ReplaceBatch {
  /** `reindex_job.job`, and the checkpoint the batch expects (guard against a second run). */
  job: string;
  doneThrough: number;
  /** Consecutive heights, each already stored, `blockTimeMs` set; NFT rows are not replaced. */
  blocks: readonly BlockRows[];
  /** The stored block after the batch, with its `block_time_ms` from the batch's last block. */
  next?: { height: number; blockTimeMs: number };
}

/** The tables two writers add to under the same keys, in the order the block writer takes them. */
const SHARED_AGGREGATES =
  'tx_account_counts, tx_msg_type_sets, tx_account_msg_type_sets, evm_tx_account_counts';

export async function replaceHeights(db: Db, dicts: WriterDictionaries, batch: ReplaceBatch): Promise<void> {
  try {
    await db.transaction((tx) => replaceInTransaction(tx, dicts, batch));
    dicts.accounts.commit();
    dicts.msgTypes.commit();
  } catch (err) {
    dicts.accounts.discard();
    dicts.msgTypes.discard();
    throw err;
  }
}

async function replaceInTransaction(tx: Queryable, dicts: WriterDictionaries, batch: ReplaceBatch) {
  const first = batch.blocks[0]!.block.height;
  const last = batch.blocks[batch.blocks.length - 1]!.block.height;
  // A live indexer's commit adding to the same counters waits for this batch (or this batch for
  // it): taken first and in its order, so the two never deadlock. API reads are not blocked.
  await tx.query(`LOCK TABLE ${SHARED_AGGREGATES} IN EXCLUSIVE MODE`);
  await moveJobCheckpoint(tx, batch.job, batch.doneThrough, last);
  const cosmos = await sequenceSpan(tx, 'tx', batch.blocks, (b) => b.txs.length);
  const evm = await sequenceSpan(tx, 'evm_tx', batch.blocks, (b) => b.evmTxs.length);
  await takeBackTypeSets(tx, cosmos);
  const touched = [
    ...(await deleteEdges(tx, 'tx_accounts', 'tx_account_counts', cosmos)),
    ...(await deleteEdges(tx, 'evm_tx_accounts', 'evm_tx_account_counts', evm)),
  ];
  for (const table of ['tx_account_msg_types', 'tx_msg_types', 'tx'] as const)
    await tx.query(`DELETE FROM ${table} WHERE sequence BETWEEN $1 AND $2`, [cosmos.lo, cosmos.hi]);
  await tx.query('DELETE FROM evm_tx WHERE sequence BETWEEN $1 AND $2', [evm.lo, evm.hi]);
  await tx.query('DELETE FROM block WHERE height BETWEEN $1 AND $2', [first, last]);
  await insertBlockRows(tx, batch.blocks, { txSequence: cosmos.lo - 1, evmSequence: evm.lo - 1 }, dicts);
  await dropEmptyAggregates(tx, touched);
  if (batch.next)
    await tx.query('UPDATE block SET block_time_ms = $2 WHERE height = $1', [
      batch.next.height,
      batch.next.blockTimeMs,
    ]);
  await tx.query('UPDATE checkpoint SET block_hash = $3 WHERE stream = $1 AND height = $2', [
    BLOCK_PIPELINE_CHECKPOINT,
    last,
    asBuffer(batch.blocks[batch.blocks.length - 1]!.block.hash),
  ]);
  await bumpStoreGeneration(tx);
}

async function moveJobCheckpoint(tx: Queryable, job: string, from: number, to: number): Promise<void> {
  const { rows } = await tx.query(
    'UPDATE reindex_job SET done_through = $3 WHERE job = $1 AND done_through = $2 RETURNING job',
    [job, from, to],
  );
  if (rows.length !== 1)
    throw new AppError(
      'reindex_moved',
      `reindex ${job}: its checkpoint is no longer ${from}; is another reindex running?`,
    );
}

/**
 * The sequences the stored rows of the batch's heights hold (`lo..hi`, gapless), after checking
 * each height holds as many txs as the node gives now: were it not so, every later sequence would
 * have to move, which no batch beside a live API can do.
 */
async function sequenceSpan(
  tx: Queryable,
  table: 'tx' | 'evm_tx',
  blocks: readonly BlockRows[],
  countOf: (b: BlockRows) => number,
): Promise<{ lo: number; hi: number }> {
  const heights = blocks.map((b) => b.block.height);
  const { rows } = await tx.query<{
    height: string | number;
    n: string | number;
    lo: string | number;
    hi: string | number;
  }>(
    `SELECT height, count(*) AS n, min(sequence) AS lo, max(sequence) AS hi
       FROM ${table} WHERE height BETWEEN $1 AND $2 GROUP BY height`,
    [heights[0], heights[heights.length - 1]],
  );
  const stored = new Map(rows.map((r) => [Number(r.height), r]));
  for (const block of blocks) {
    const have = Number(stored.get(block.block.height)?.n ?? 0);
    if (have !== countOf(block))
      throw new AppError(
        'reindex_shape',
        `height ${block.block.height} holds ${countOf(block)} ${table} rows on the node but ${have} stored: ` +
          'the sequences of every later height would move; index the chain again into a new database',
      );
  }
  if (rows.length === 0) return { lo: 0, hi: -1 };
  return {
    lo: Math.min(...rows.map((r) => Number(r.lo))),
    hi: Math.max(...rows.map((r) => Number(r.hi))),
  };
}

/** Takes the old txs out of the per type-set counts (migration 0014), chain-wide and per account. */
async function takeBackTypeSets(tx: Queryable, span: { lo: number; hi: number }): Promise<void> {
  await tx.query(
    `WITH sets AS (
       SELECT sequence, array_agg(msg_type_id ORDER BY msg_type_id) AS type_ids
         FROM tx_msg_types WHERE sequence BETWEEN $1 AND $2 GROUP BY sequence),
     chain AS (
       UPDATE tx_msg_type_sets t SET txs = t.txs - s.n
         FROM (SELECT type_ids, count(*) AS n FROM sets GROUP BY type_ids) s WHERE t.type_ids = s.type_ids)
     UPDATE tx_account_msg_type_sets t SET txs = t.txs - a.n, signed = t.signed - a.signed
       FROM (SELECT e.account_id, s.type_ids, count(*) AS n, count(*) FILTER (WHERE e.signer) AS signed
               FROM tx_accounts e JOIN sets s ON s.sequence = e.sequence
              WHERE e.sequence BETWEEN $1 AND $2 GROUP BY e.account_id, s.type_ids) a
      WHERE t.account_id = a.account_id AND t.type_ids = a.type_ids`,
    [span.lo, span.hi],
  );
}

/** Deletes the old account edges and takes them out of the per-account counts; their accounts. */
async function deleteEdges(
  tx: Queryable,
  edges: 'tx_accounts' | 'evm_tx_accounts',
  counts: 'tx_account_counts' | 'evm_tx_account_counts',
  span: { lo: number; hi: number },
): Promise<number[]> {
  const { rows } = await tx.query<{ account_id: string | number }>(
    `WITH gone AS (DELETE FROM ${edges} WHERE sequence BETWEEN $1 AND $2 RETURNING account_id, signer),
     per AS (SELECT account_id, count(*) AS n, count(*) FILTER (WHERE signer) AS s FROM gone GROUP BY account_id),
     taken AS (UPDATE ${counts} c SET txs = c.txs - per.n, signed = c.signed - per.s
                 FROM per WHERE c.account_id = per.account_id)
     SELECT account_id FROM per`,
    [span.lo, span.hi],
  );
  return rows.map((r) => Number(r.account_id));
}

/** A fresh index has no counter at zero: one the old rows alone made is removed. */
async function dropEmptyAggregates(tx: Queryable, accounts: readonly number[]): Promise<void> {
  const ids = sqlArray(accounts);
  for (const table of ['tx_account_counts', 'evm_tx_account_counts', 'tx_account_msg_type_sets'])
    await tx.query(`DELETE FROM ${table} WHERE account_id = ANY($1::bigint[]) AND txs = 0`, [ids]);
  await tx.query('DELETE FROM tx_msg_type_sets WHERE txs = 0');
}
