import { InputError } from '../../shared/errors.js';
import type { Db, Queryable } from '../../store/driver/db.js';
import { readStoredBounds } from '../../store/readers/stored-heights.js';
import { STORE_CHECK_MS } from '../../store/readers/store-watch.js';
import { createWriterDictionaries } from '../../store/writers/block-writer.js';
import { replaceHeights, type ReplaceBatch } from '../../store/writers/height-replace.js';
import type { BlockRows } from '../../store/writers/rows.js';
import type { PreparedBlock } from '../prepare/block.js';
import { millisBetween } from '../time.js';
import type { NodeRows } from './node-rows.js';

/**
 * `reindex --from --to` (docs/ingest.md §11.2): the block-pipeline rows of stored heights fetched,
 * decoded and written again, batch by batch beside a live API and indexer. Each batch commits its
 * rows with the job's checkpoint (`reindex_job`), so a killed run resumes after the last batch
 * that committed; the heights must be at or below the block checkpoint, which the live indexer
 * only ever moves up, so the two never write the same height.
 */
export interface ReindexPlan {
  from: number;
  to: number;
  /** Heights per batch (one transaction; default 50). */
  batch?: number;
  signal?: AbortSignal;
  onBatch?: (progress: { through: number; to: number; heights: number }) => void;
}

export interface ReindexReport {
  from: number;
  to: number;
  /** Heights written by this run (a resumed run starts after the checkpoint). */
  heights: number;
  seconds: number;
  nodeRequests: number;
  finished: boolean;
}

const RANGE_JOB = 'range';

export async function runReindex(db: Db, node: NodeRows, plan: ReindexPlan): Promise<ReindexReport> {
  const started = performance.now();
  const stored = await checkRange(db, plan);
  let done = await claimJob(db, plan);
  const resumedAt = done;
  const dicts = createWriterDictionaries();
  const bounds = { ...stored, to: plan.to, size: plan.batch ?? 50 };
  // The next batch is fetched and prepared while this one is written.
  let next = done < plan.to ? fetchBatch(node, done, bounds) : undefined;
  while (next && !plan.signal?.aborted) {
    const batch = await next;
    next = batch.last < plan.to ? fetchBatch(node, batch.last, bounds) : undefined;
    next?.catch(() => undefined); // surfaces when awaited; unobserved if this write fails
    await replaceHeights(db, dicts, { job: RANGE_JOB, doneThrough: done, ...batch.rows });
    plan.onBatch?.({ through: batch.last, to: plan.to, heights: batch.last - done });
    done = batch.last;
  }
  await next?.catch(() => undefined); // a stop leaves no request behind
  const finished = done >= plan.to;
  if (finished) {
    await db.query('DELETE FROM reindex_job WHERE job = $1', [RANGE_JOB]);
    // Every API process confirms the store's identity at most this long after our last commit:
    // once we return, none serves a replaced row's old bytes (docs/api.md §1.9).
    await new Promise((resolve) => setTimeout(resolve, STORE_CHECK_MS + 100));
  }
  return {
    from: plan.from,
    to: plan.to,
    heights: done - resumedAt,
    seconds: (performance.now() - started) / 1000,
    nodeRequests: await node.requests(),
    finished,
  };
}

/** The rows of the batch after `done`, and the next stored block's block_time when it is the last. */
async function fetchBatch(
  node: NodeRows,
  done: number,
  bounds: { lowest: number; indexed: number; to: number; size: number },
): Promise<{ last: number; rows: Pick<ReplaceBatch, 'blocks' | 'next'> }> {
  const first = done + 1;
  const last = Math.min(done + bounds.size, bounds.to);
  const around = {
    before: first > bounds.lowest ? first - 1 : undefined,
    after: last === bounds.to && last < bounds.indexed ? last + 1 : undefined,
  };
  const fetched = await node.prepare(heightsToFetch(first, last, around));
  const blocks = blockRows(fetched, first, last);
  if (around.after === undefined) return { last, rows: { blocks } };
  const [previous, following] = fetched.slice(-2) as [PreparedBlock, PreparedBlock];
  return {
    last,
    rows: {
      blocks,
      next: { height: following.block.height, blockTimeMs: millisBetween(previous.time, following.time) },
    },
  };
}

function heightsToFetch(
  first: number,
  last: number,
  around: { before?: number | undefined; after?: number | undefined },
) {
  const heights = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return [
    ...(around.before === undefined ? [] : [around.before]),
    ...heights,
    ...(around.after === undefined ? [] : [around.after]),
  ];
}

/** Rows of first..last with each block's time since the block before (0 for the first stored one). */
function blockRows(fetched: readonly PreparedBlock[], first: number, last: number): BlockRows[] {
  const rows: BlockRows[] = [];
  fetched.forEach((block, i) => {
    const height = block.block.height;
    if (height < first || height > last) return;
    const previous = fetched[i - 1];
    const blockTimeMs = previous ? millisBetween(previous.time, block.time) : 0;
    rows.push({ ...block, block: { ...block.block, blockTimeMs } });
  });
  return rows;
}

/** The lowest stored height and the block checkpoint; the range must lie between them. */
async function checkRange(db: Queryable, plan: ReindexPlan): Promise<{ lowest: number; indexed: number }> {
  const stored = await readStoredBounds(db);
  if (stored.lowest === 0 || plan.from < stored.lowest || plan.to > stored.indexed || plan.from > plan.to)
    throw new InputError(
      'invalid_range',
      `--from ${plan.from} --to ${plan.to} must lie within the indexed heights ${stored.lowest}..${stored.indexed}`,
    );
  return stored;
}

/** The job's checkpoint: a new job starts before `from`; an unfinished one of another range refuses. */
async function claimJob(db: Queryable, plan: ReindexPlan): Promise<number> {
  await db.query(
    `INSERT INTO reindex_job (job, from_height, to_height, done_through) VALUES ($1, $2::bigint, $3::bigint, $2::bigint - 1)
     ON CONFLICT (job) DO NOTHING`,
    [RANGE_JOB, plan.from, plan.to],
  );
  const { rows } = await db.query<{ from_height: string; to_height: string; done_through: string }>(
    'SELECT from_height::text, to_height::text, done_through::text FROM reindex_job WHERE job = $1',
    [RANGE_JOB],
  );
  const job = rows[0]!;
  if (Number(job.from_height) !== plan.from || Number(job.to_height) !== plan.to)
    throw new InputError(
      'reindex_unfinished',
      `a reindex of ${job.from_height}..${job.to_height} is unfinished (through ${job.done_through}): ` +
        `run it again to finish it, or pass --abandon to drop it`,
    );
  return Number(job.done_through);
}

/** Drops an unfinished range reindex (its batches stay: each one is a complete, correct batch). */
export async function abandonReindex(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ from_height: string; to_height: string; done_through: string }>(
    'DELETE FROM reindex_job WHERE job = $1 RETURNING from_height::text, to_height::text, done_through::text',
    [RANGE_JOB],
  );
  const job = rows[0];
  return job
    ? `dropped the reindex of ${job.from_height}..${job.to_height} (done through ${job.done_through})`
    : 'no reindex to drop';
}
