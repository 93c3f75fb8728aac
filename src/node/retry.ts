import { isRetryable } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { NodeWaits } from '../shared/node-waits.js';

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  /**
   * Give up after this many attempts. Unset for ingest's node reads (docs/ingest.md §10): a node
   * outage of any length is waited for; a bounded inner retry hands a retryable error to a part
   * that waits without bound.
   */
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

/** Where a retried read reports that it waits for the node (`/status`'s `waiting`). */
export interface WaitReport {
  waits: NodeWaits;
  part: string;
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
    /** Shows this read on the waits board from its first failure until it ends, however it ends. */
    report?: WaitReport | undefined;
  },
): Promise<T> {
  const wait = options.report?.waits.entry(options.report.part, options.what);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        const last = options.policy.maxAttempts !== undefined && attempt + 1 >= options.policy.maxAttempts;
        if (!isRetryable(err) || last || options.signal?.aborted) throw err;
        const delay = backoffDelay(attempt, options.policy);
        wait?.failed(err);
        options.onRetry?.(err as Error);
        options.logger?.warn(
          {
            ...(options.report ? { part: options.report.part } : {}),
            what: options.what,
            attempt: attempt + 1,
            delayMs: delay,
            err: (err as Error).message,
          },
          'node request failed, retrying',
        );
        await abortableDelay(delay, options.signal);
      }
    }
  } finally {
    wait?.done();
  }
}

/**
 * Sleepers per signal, woken together by the one abort listener each signal gets. Every retry of a
 * window of chunks or a batch of traces sleeps at once during an outage; a listener each would pile
 * up on the run's signal (MaxListenersExceededWarning past 10).
 */
const sleepers = new WeakMap<AbortSignal, Set<() => void>>();

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let waiting = sleepers.get(signal);
    if (!waiting) {
      const set = (waiting = new Set());
      sleepers.set(signal, set);
      signal.addEventListener('abort', () => set.forEach((wake) => wake()), { once: true });
    }
    const set = waiting;
    const wake = () => {
      clearTimeout(timer);
      set.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    set.add(wake);
  });
}
