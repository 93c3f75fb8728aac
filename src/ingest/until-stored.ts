import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { backoffDelay, INGEST_RETRY } from '../node/retry.js';
import type { IngestMetrics } from './metrics.js';

/**
 * Runs a commit, waiting out a database that is away (restart, failover, dropped connection):
 * retries with capped backoff. A commit whose answer was lost may have happened, so `write` is
 * told to re-read its checkpoint before each retry and write only what is not stored yet.
 */
export async function untilStored(
  write: (afterLostCommit: boolean) => Promise<void>,
  ctx: { logger: Logger; metrics: Pick<IngestMetrics, 'dbAvailable' | 'dbRetries'>; signal: AbortSignal },
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await write(attempt > 0);
      ctx.metrics.dbAvailable.set(1);
      if (attempt > 0) ctx.logger.info({ attempts: attempt + 1 }, 'database is back; commit done');
      return;
    } catch (err) {
      // Stopping while the database is away: nothing is lost, the checkpoint says where to resume.
      if (!isRetryable(err) || ctx.signal.aborted) throw err;
      const delayMs = backoffDelay(attempt, INGEST_RETRY);
      ctx.metrics.dbAvailable.set(0);
      ctx.metrics.dbRetries.inc();
      ctx.logger.warn(
        { attempt: attempt + 1, delayMs, err: errorMessage(err) },
        'database unavailable, retrying the commit',
      );
      await sleep(delayMs, undefined, { signal: ctx.signal }).catch(() => undefined);
    }
  }
}
