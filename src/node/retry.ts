import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  /** Give up after this many attempts (undefined = never, for ingest which must not skip). */
  maxAttempts?: number;
}

export const INGEST_RETRY: RetryPolicy = { baseMs: 100, capMs: 5_000 };

/** Capped exponential backoff with full jitter: spreads retries of many in-flight requests. */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retries fn while it throws retryable errors; anything else propagates at once. */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: {
    policy: RetryPolicy;
    logger?: Logger;
    what: string;
    signal?: AbortSignal;
    /** Told of each failure that will be retried (e.g. to report "node unreachable"). */
    onRetry?: (err: Error) => void;
  },
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const last = options.policy.maxAttempts !== undefined && attempt + 1 >= options.policy.maxAttempts;
      if (!isRetryable(err) || last || options.signal?.aborted) throw err;
      const delay = backoffDelay(attempt, options.policy);
      options.onRetry?.(err as Error);
      options.logger?.warn(
        { what: options.what, attempt: attempt + 1, delayMs: delay, err: (err as Error).message },
        'node request failed, retrying',
      );
      await sleep(delay, undefined, options.signal ? { signal: options.signal } : undefined).catch(
        () => undefined,
      );
    }
  }
}
