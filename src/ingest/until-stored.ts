import { AppError, errorMessage, isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import {
  abortableDelay,
  backoffDelay,
  INGEST_RETRY,
  type RetryPolicy,
  type WaitReport,
} from '../node/retry.js';
import type { IngestMetrics } from './metrics.js';

/**
 * Runs a commit, waiting out a database that is away (restart, failover, dropped connection):
 * retries with capped backoff. A commit whose answer was lost may have happened, so `write` is
 * told to re-read its checkpoint before each retry and write only what is not stored yet. A commit
 * that reads the node (the rich list's corrections) and fails on node trouble is rolled back and
 * retried the same way, shown as waiting for the node when `report` says where.
 */
export async function untilStored(
  write: (afterLostCommit: boolean) => Promise<void>,
  ctx: {
    logger: Logger;
    metrics: Pick<IngestMetrics, 'database' | 'dbRetries'>;
    signal: AbortSignal;
    report?: WaitReport | undefined;
    policy?: RetryPolicy | undefined;
  },
): Promise<void> {
  const nodeWait = ctx.report?.waits.entry(ctx.report.part, 'commit');
  let awayWas: 'database' | 'node' = 'database';
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await write(attempt > 0);
        ctx.metrics.database.back();
        if (attempt > 0) ctx.logger.info({ attempts: attempt + 1 }, `${awayWas} is back; commit done`);
        return;
      } catch (err) {
        // Stopping while the database is away: nothing is lost, the checkpoint says where to resume.
        if (!isRetryable(err) || ctx.signal.aborted) throw err;
        const delayMs = backoffDelay(attempt, ctx.policy ?? INGEST_RETRY);
        awayWas = err instanceof AppError && err.code.startsWith('node_') ? 'node' : 'database';
        if (awayWas === 'database') {
          ctx.metrics.database.away(err);
          ctx.metrics.dbRetries.inc();
          ctx.logger.warn(
            { attempt: attempt + 1, delayMs, err: errorMessage(err) },
            'database unavailable, retrying the commit',
          );
        } else {
          nodeWait?.failed(err);
          ctx.logger.warn(
            { attempt: attempt + 1, delayMs, err: errorMessage(err) },
            'node read of a commit failed, retrying the commit',
          );
        }
        await abortableDelay(delayMs, ctx.signal);
      }
    }
  } finally {
    nodeWait?.done();
  }
}
