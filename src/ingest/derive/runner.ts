import { AppError, errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Db } from '../../store/driver/db.js';
import {
  advanceDerivationCheckpoint,
  createDerivationCheckpoint,
  loadDerivationCheckpoint,
  lockDerivationCheckpoint,
} from '../../store/writers/derivation-checkpoint.js';
import type { NodeWaits } from '../../shared/node-waits.js';
import { abortableDelay, backoffDelay, INGEST_RETRY, withRetry, type RetryPolicy } from '../../node/retry.js';
import type { IngestMetrics } from '../metrics.js';
import { untilStored } from '../until-stored.js';
import type { BlockHead } from './block-head.js';
import type { Derivation, DerivationCheckpoint } from './derivation.js';

export interface DerivationRunnerDeps {
  db: Db;
  logger: Logger;
  metrics: IngestMetrics;
  head: BlockHead;
  /** Backoff towards the node, without an attempt budget (default INGEST_RETRY; tests shrink it). */
  retry?: RetryPolicy | undefined;
  /** Where a stage waiting for the node says so (`/status`'s `waiting`). */
  waits?: NodeWaits | undefined;
}

export interface DerivationRunOptions {
  signal: AbortSignal;
  /** Stop once this height is committed. */
  untilHeight?: number;
  /** Heights per fetch and commit (default 50). */
  batchHeights?: number;
  /** Told after each batch committed, with the stage's new height (`reindex --stage`'s progress). */
  onCommitted?: (height: number) => Promise<void> | void;
}

/**
 * Runs one stage behind the block stream until aborted, until `untilHeight` is committed, or until
 * it has caught up with a block stream that has finished. While one batch is written the next is
 * fetched, when the block stream already has it; a fetched batch is committed without waiting for
 * any later block, so on a chain that halts the stage still reaches the head. A batch whose fetch
 * fails on node trouble is fetched again, with capped backoff, for as long as the node is away
 * (docs/ingest.md §10); an error no retry fixes stops the stage naming its heights: skipping them
 * would leave a hole nobody could see.
 */
export async function runDerivation<W>(
  stage: Derivation<W>,
  deps: DerivationRunnerDeps,
  run: DerivationRunOptions,
): Promise<void> {
  const { signal } = run;
  let at: DerivationCheckpoint | undefined;
  try {
    at = await openCheckpoint(stage, deps, run);
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  if (at === undefined) return;
  // The lag is read at scrape time from the stream's head, so it grows while this stage is stuck.
  let committed: DerivationCheckpoint = at;
  deps.metrics.watchStageLag(stage.name, () => Math.max(0, deps.head.height() - committed.height));
  deps.metrics.stageHeight.set({ stage: stage.name }, at.height);
  deps.logger.info({ stage: stage.name, from: at.height + 1 }, 'stage started');

  const heights = batchRanges(deps.head, run);
  const fetch = (range: [number, number]) => {
    const fetching = fetchBatch(stage, deps, run, range);
    fetching.catch(() => undefined); // awaited below; a stop meanwhile must not leave it unhandled
    return fetching;
  };
  let range = await heights.after(at.height);
  let pending = range && fetch(range);
  try {
    while (range && pending) {
      const work = await pending;
      const [, to] = range;
      // Only heights the block stream already has are prefetched: waiting here for a block above
      // `to` would hold this batch back for as long as the chain does not move.
      range = heights.ready(to);
      pending = range && fetch(range);
      at = await commitBatch(stage, deps, signal, at, to, work);
      committed = at;
      deps.metrics.stageHeight.set({ stage: stage.name }, at.height);
      await run.onCommitted?.(at.height);
      if (!range) {
        range = await heights.after(to);
        pending = range && fetch(range);
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  deps.logger.info({ stage: stage.name, height: at.height }, 'stage stopped');
}

/**
 * The batch of heights above a committed height: at most `batchHeights`, none above the block
 * stream's head or `untilHeight`.
 */
function batchRanges(head: BlockHead, run: DerivationRunOptions) {
  const { signal } = run;
  const until = run.untilHeight ?? Number.POSITIVE_INFINITY;
  const batchHeights = run.batchHeights ?? 50;
  /** Heights above `height` the block stream has committed already; none when it has none. */
  const ready = (height: number): [number, number] | undefined =>
    height < until && head.height() > height && !signal.aborted
      ? [height + 1, Math.min(height + batchHeights, head.height(), until)]
      : undefined;
  return {
    ready,
    /** As `ready`, once the block stream commits above `height`; none if it stops below it. */
    async after(height: number): Promise<[number, number] | undefined> {
      while (height < until && head.height() <= height && !signal.aborted && !head.finished()) {
        await head.next(signal);
      }
      return ready(height);
    },
  };
}

/** The derivation's checkpoint, created below the first indexed block (or by its init). */
async function openCheckpoint<W>(
  stage: Derivation<W>,
  deps: DerivationRunnerDeps,
  run: DerivationRunOptions,
): Promise<DerivationCheckpoint | undefined> {
  const { signal } = run;
  const existing = await whileDatabaseAway(deps, signal, () => loadDerivationCheckpoint(deps.db, stage.name));
  if (existing) return existing;
  let firstBlockHeight: number | undefined;
  while (!signal.aborted) {
    const { rows } = await whileDatabaseAway(deps, signal, () =>
      deps.db.query<{ first: number | null }>('SELECT min(height) AS first FROM block'),
    );
    firstBlockHeight = rows[0]?.first ?? undefined;
    if (firstBlockHeight !== undefined || deps.head.finished()) break;
    await deps.head.next(signal);
  }
  if (firstBlockHeight === undefined) return undefined;
  const first = firstBlockHeight;
  const start = stage.init
    ? await retried(stage, deps, run, `start at ${first}`, () =>
        stage.init!({ firstBlockHeight: first, signal }),
      )
    : undefined;
  // A commit whose answer was lost may have happened: each attempt looks for the checkpoint first.
  return whileDatabaseAway(deps, signal, async () => {
    const created = await loadDerivationCheckpoint(deps.db, stage.name);
    if (created) return created;
    try {
      const opened = await deps.db.transaction(async (tx) => {
        await start?.write(tx);
        return createDerivationCheckpoint(tx, stage.name, start?.height ?? first - 1);
      });
      stage.committed?.();
      return opened;
    } catch (err) {
      stage.rolledBack?.();
      throw err;
    }
  });
}

/**
 * Waits out a database that is away (restart, failover), as the block stream's commits do: a
 * stage reads the database too, and an outage must not stop it for good. Other errors propagate.
 */
async function whileDatabaseAway<T>(
  deps: DerivationRunnerDeps,
  signal: AbortSignal,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'db_unavailable') || signal.aborted) throw err;
      deps.metrics.database.away(err);
      await abortableDelay(backoffDelay(attempt, INGEST_RETRY), signal);
    }
  }
}

/**
 * Runs a node read until it answers: node trouble is waited out without an attempt budget, shown
 * as this stage waiting (docs/ingest.md §10). An error no retry fixes stops the stage, naming `what`.
 */
async function retried<W, T>(
  stage: Derivation<W>,
  deps: DerivationRunnerDeps,
  run: DerivationRunOptions,
  what: string,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await whileDatabaseAway(deps, run.signal, () =>
      withRetry(read, {
        policy: deps.retry ?? INGEST_RETRY,
        logger: deps.logger,
        what,
        signal: run.signal,
        report: deps.waits && { waits: deps.waits, part: `${stage.name} stage` },
      }),
    );
  } catch (err) {
    if (run.signal.aborted) throw err;
    throw new AppError(
      'stage_stalled',
      `${stage.name} stage stopped at ${what}: ${errorMessage(err)}; no height is skipped, a restart resumes there`,
      { cause: err },
    );
  }
}

function fetchBatch<W>(
  stage: Derivation<W>,
  deps: DerivationRunnerDeps,
  run: DerivationRunOptions,
  [from, to]: [number, number],
): Promise<W> {
  return retried(stage, deps, run, `heights ${from}..${to}`, () => stage.fetch(from, to, run.signal));
}

async function commitBatch<W>(
  stage: Derivation<W>,
  deps: DerivationRunnerDeps,
  signal: AbortSignal,
  from: DerivationCheckpoint,
  to: number,
  work: W,
): Promise<DerivationCheckpoint> {
  let at = from;
  await untilStored(
    async (afterLostCommit) => {
      if (afterLostCommit) {
        const stored = await loadDerivationCheckpoint(deps.db, stage.name);
        if (stored && stored.height >= to) {
          at = stored;
          return;
        }
      }
      try {
        const { next, rows } = await deps.db.transaction(async (tx) => {
          const base = await lockDerivationCheckpoint(tx, stage.name, from);
          const written = await stage.write(tx, work, base);
          const next = { height: to, sequence: written.sequence };
          await advanceDerivationCheckpoint(tx, stage.name, base, next);
          return { next, rows: written.rows };
        });
        stage.committed?.();
        deps.metrics.stageRows.inc({ stage: stage.name }, rows);
        at = next;
      } catch (err) {
        stage.rolledBack?.();
        throw err;
      }
    },
    {
      logger: deps.logger,
      metrics: deps.metrics,
      signal,
      policy: deps.retry,
      report: deps.waits && { waits: deps.waits, part: `${stage.name} stage` },
    },
  );
  return at;
}
