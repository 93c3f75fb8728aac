import { AppError } from '../../shared/errors.js';

/**
 * A cap on concurrent expensive queries (exact counts for `pagination.total`, offset scans), so a
 * burst of them cannot take every pooled connection from cheap key look-ups. It never queues: a
 * query that finds the cap full is not run (a count then reports "-1", an offset scan answers 503).
 */
export interface WorkLimiter {
  readonly max: number;
  /** Runs fn when a slot is free; undefined (fn not called) when the cap is reached. */
  tryRun<T>(fn: () => Promise<T>): Promise<T> | undefined;
  inFlight(): number;
}

/** `onRefused` observes each refusal (a metric). */
export function createWorkLimiter(max: number, onRefused: () => void = () => undefined): WorkLimiter {
  let running = 0;
  return {
    max,
    tryRun(fn) {
      if (running >= max) {
        onRefused();
        return undefined;
      }
      running += 1;
      let promise: ReturnType<typeof fn>;
      try {
        promise = fn();
      } catch (err) {
        running -= 1;
        throw err;
      }
      return promise.finally(() => {
        running -= 1;
      });
    },
    inFlight: () => running,
  };
}

/** The retryable error an API maps to 503 JSON (code 14) with Retry-After. */
export function overloadedError(max: number): AppError {
  return new AppError(
    'overloaded',
    `too many expensive queries in progress (API_MAX_EXPENSIVE_QUERIES=${max}); retry shortly`,
    { retryable: true },
  );
}
