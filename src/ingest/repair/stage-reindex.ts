import { AppError, InputError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { RetryPolicy } from '../../node/retry.js';
import type { Db, Queryable } from '../../store/driver/db.js';
import { readChainMeta } from '../../store/readers/chain-meta.js';
import { STORE_CHECK_MS } from '../../store/readers/store-watch.js';
import { loadDerivationCheckpoint } from '../../store/writers/derivation-checkpoint.js';
import {
  dropStageRebuild,
  openStageRebuild,
  swapStageRebuild,
  type StageRebuild,
} from '../../store/writers/stage-swap.js';
import { createIngestMetrics } from '../metrics.js';
import type { BlockHead } from '../derive/block-head.js';
import type { DerivationName } from '../derive/derivation.js';
import { createDerivations, type RunnableDerivation } from '../derive/registry.js';
import type { NodeRows } from './node-rows.js';
import type { ReindexReport } from './reindex.js';

/**
 * `reindex --stage <name>` (docs/ingest.md §11.4): a derivation stage (src/ingest/derive/registry.ts)
 * run again from its start — the first indexed height, where a fresh index starts it — by its own
 * code, into a rebuild beside the served rows (src/store/writers/stage-swap.ts), until it stands
 * where the served stage stands; then the two are swapped in one transaction. A killed run resumes
 * from the rebuild's own checkpoint, committed with each of its batches, as the stage itself does.
 */
export interface StageReindexPlan {
  stage: DerivationName;
  accountPrefix: string;
  /** Heights per batch (the stage's own default: 50). */
  batch?: number;
  signal?: AbortSignal;
  onBatch?: (progress: { stage: DerivationName; through: number; to: number }) => void;
  /** Backoff towards the node (default the ingest's; tests shrink it). */
  retry?: RetryPolicy;
  logger?: Logger;
}

/**
 * A range reindex's report, where `from` is the first height the stage derives, `to` where the
 * served stage stood at the swap, and `heights` those derived by this run (a resumed run starts
 * after the rebuild's checkpoint).
 */
export interface StageReindexReport extends ReindexReport {
  stage: DerivationName;
  /** Rows swapped in (every table of the stage). */
  rows: number;
}

/** Rebuild-and-swap rounds before giving up on a served stage that keeps moving ahead. */
const MAX_ROUNDS = 50;

export const stageJob = (stage: DerivationName) => `stage:${stage}`;

export async function runStageReindex(
  db: Db,
  node: NodeRows,
  plan: StageReindexPlan,
): Promise<StageReindexReport> {
  const started = performance.now();
  const { stage } = plan;
  const served = await loadDerivationCheckpoint(db, stage);
  if (!served)
    throw new InputError(
      'stage_not_run',
      `the ${stage} stage has never run on this database: nothing to reindex (an indexer with it enabled starts it)`,
    );
  const first = await firstIndexedHeight(db);
  await claimStageJob(db, stage, first, served.height);
  const rebuild = await openStageRebuild(db, stage);
  const resumedAt = (await rebuild.checkpoint())?.height ?? first - 1;
  const runnable = await stageRunnable(rebuild, node, plan);
  const report = (to: number, done: number, finished: boolean, rows: number) =>
    node.requests().then((nodeRequests) => ({
      stage,
      from: first,
      to,
      heights: Math.max(0, done - resumedAt),
      seconds: (performance.now() - started) / 1000,
      nodeRequests,
      finished,
      rows,
    }));
  let target = served.height;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    await runTo(db, rebuild, runnable, plan, target);
    const done = (await rebuild.checkpoint())?.height ?? first - 1;
    if (plan.signal?.aborted || done < target) return report(target, done, false, 0);
    const swap = await swapStageRebuild(db, rebuild, stageJob(stage));
    if (swap.swapped) {
      // As the range reindex: once we return, no API process serves the stage's old rows.
      await new Promise((resolve) => setTimeout(resolve, STORE_CHECK_MS + 100));
      return report(swap.height, done, true, swap.rows);
    }
    target = swap.height;
  }
  throw new AppError(
    'reindex_moved',
    `the served ${stage} stage kept moving ahead of the rebuild for ${MAX_ROUNDS} rounds; run it again`,
  );
}

/** Runs the rebuild's stage up to `target`, the served stage's height (the heights are all stored). */
async function runTo(
  db: Db,
  rebuild: StageRebuild,
  runnable: RunnableDerivation,
  plan: StageReindexPlan,
  target: number,
): Promise<void> {
  const signal = plan.signal ?? new AbortController().signal;
  await runnable.run(
    {
      db: rebuild.db,
      logger: plan.logger ?? silentLogger(),
      metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
      head: fixedHead(target),
      retry: plan.retry,
    },
    {
      signal,
      untilHeight: target,
      ...(plan.batch !== undefined ? { batchHeights: plan.batch } : {}),
      onCommitted: async (through) => {
        // The job row says how far the rebuild got (what resumes it is the rebuild's checkpoint).
        await db.query('UPDATE reindex_job SET done_through = $2 WHERE job = $1', [
          stageJob(plan.stage),
          through,
        ]);
        plan.onBatch?.({ stage: plan.stage, through, to: target });
      },
    },
  );
}

/** The stage as ingest creates it, on the rebuild's view of the database. */
async function stageRunnable(
  rebuild: StageRebuild,
  node: NodeRows,
  plan: StageReindexPlan,
): Promise<RunnableDerivation> {
  const chain = (await readChainMeta(rebuild.db))!;
  const stages = createDerivations({
    chain,
    options: { internalTx: plan.stage === 'internal_tx', richList: plan.stage === 'rich_list' },
    db: rebuild.db,
    ...node.clients,
    accountPrefix: plan.accountPrefix,
    signal: plan.signal,
    retry: plan.retry,
  });
  const runnable = stages.find((s) => s.name === plan.stage);
  if (!runnable) throw new InputError('stage_not_run', `the ${plan.stage} stage does not run on this chain`);
  return runnable;
}

/** Every height up to `height` is committed by the block stream; it does not move for the rebuild. */
function fixedHead(height: number): BlockHead {
  return { height: () => height, finished: () => true, next: () => Promise.resolve() };
}

async function firstIndexedHeight(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ first: number | null }>('SELECT min(height) AS first FROM block');
  const first = rows[0]?.first;
  if (first === null || first === undefined)
    throw new InputError('not_indexed', 'the database holds no block yet: nothing to reindex');
  return Number(first);
}

/** The stage's job row: created by the first run, kept by a resumed one. */
async function claimStageJob(db: Queryable, stage: DerivationName, first: number, to: number): Promise<void> {
  await db.query(
    `INSERT INTO reindex_job (job, from_height, to_height, done_through) VALUES ($1, $2::bigint, $3::bigint, $2::bigint - 1)
     ON CONFLICT (job) DO UPDATE SET to_height = EXCLUDED.to_height`,
    [stageJob(stage), first, to],
  );
}

/** Drops an unfinished stage reindex: the rebuild goes, the served rows were never touched. */
export async function abandonStageReindex(db: Db, stage: DerivationName): Promise<string> {
  return (await dropStageRebuild(db, stage, stageJob(stage)))
    ? `dropped the reindex of the ${stage} stage`
    : `no reindex of the ${stage} stage to drop`;
}
