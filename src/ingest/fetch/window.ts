import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { INGEST_RETRY, withRetry } from '../../node/retry.js';

/**
 * Fetches and prepares one chunk of consecutive heights; undefined = not produced yet. A chunk
 * whose height fails for good part-way throws ChunkFailedAt, so the heights before it still count.
 */
export type ChunkFetcher<T> = (heights: readonly number[]) => Promise<(T | undefined)[]>;

/**
 * A chunk failed for good at `height`: `itemsBefore` are the chunk's items up to it. Ingest then
 * commits every height before the failure and stops exactly there, so the error and the
 * checkpoint name the same height (the failing height, and the one before it).
 */
export class ChunkFailedAt<T> extends AppError {
  constructor(
    readonly height: number,
    readonly itemsBefore: readonly (T | undefined)[],
    readonly reason: unknown,
  ) {
    // Only carries `reason` to the window, which raises the reason itself: never seen by a user.
    super('ingest_chunk_failed', `height ${height}: ${errorMessage(reason)}`, { cause: reason });
    this.name = 'ChunkFailedAt';
  }
}

export interface FetchWindowOptions<T> {
  start: number;
  fetchChunk: ChunkFetcher<T>;
  /** Latest height the node has produced. */
  fetchHead: () => Promise<number>;
  /** Size of an item (e.g. its tx count), to bound memory by work rather than by heights. */
  weight: (item: T) => number;
  /** Most heights per request. */
  chunkSize: number;
  /**
   * Target weight per request: once items are seen, a chunk holds about this much work, so heavy
   * blocks travel a few at a time and memory in flight stays bounded by work, not by heights.
   */
  chunkWeight: number;
  maxChunksInFlight: number;
  /** Stop requesting ahead once this much weight is buffered. */
  maxBufferedWeight: number;
  /** Head polling interval once caught up. */
  pollMs: number;
  logger: Logger;
  signal: AbortSignal;
}

export interface FetchWindow<T> {
  /** The item for the next height, in order; waits while it is not produced yet. */
  next(): Promise<T>;
  /** The next item if it is already here (to fill a commit batch without waiting). */
  takeReady(): T | undefined;
  /** Latest known node height (for progress and lag). */
  knownHead(): number;
  /** Items buffered and requests in flight (for metrics). */
  depth(): { buffered: number; inFlight: number };
}

/**
 * A bounded, order-preserving window of heights in flight. Chunks of consecutive heights are
 * requested concurrently; results are buffered until the consumer asks for them in order. A
 * height that is not produced yet is re-requested after the head moves, so no height is ever
 * skipped; transient failures are retried with backoff; a fatal one is raised to the consumer.
 */
export function createFetchWindow<T>(options: FetchWindowOptions<T>): FetchWindow<T> {
  const ready = new Map<number, T>();
  let wanted = options.start;
  let frontier = options.start;
  let head = options.start - 1;
  let inFlight = 0;
  let bufferedWeight = 0;
  let refreshingHead = false;
  let lastHeadPoll = 0;
  // The failure at the lowest height; raised once every height before it has been delivered.
  let fatal: { height: number; err: unknown } | undefined;
  // Running average weight of the items seen so far (undefined until the first one).
  let averageWeight: number | undefined;
  let wake: (() => void) | undefined;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const fail = (err: unknown, height: number) => {
    if (fatal === undefined || height < fatal.height) fatal = { height, err };
    notify();
  };

  function pump(): void {
    if (fatal !== undefined || options.signal.aborted) return;
    while (
      inFlight < options.maxChunksInFlight &&
      frontier <= head &&
      bufferedWeight < options.maxBufferedWeight
    ) {
      const end = Math.min(head, frontier + chunkHeights() - 1);
      const heights = Array.from({ length: end - frontier + 1 }, (_, i) => frontier + i);
      frontier = end + 1;
      inFlight++;
      void runChunk(heights);
    }
    if (frontier > head && inFlight === 0) void refreshHead();
  }

  function chunkHeights(): number {
    if (averageWeight === undefined) return options.chunkSize;
    return Math.max(1, Math.min(options.chunkSize, Math.floor(options.chunkWeight / averageWeight)));
  }

  async function runChunk(heights: number[]): Promise<void> {
    try {
      const items = await withRetry(() => options.fetchChunk(heights), {
        policy: INGEST_RETRY,
        logger: options.logger,
        what: `heights ${heights[0]}-${heights[heights.length - 1]}`,
        signal: options.signal,
      });
      accept(heights, items);
    } catch (err) {
      if (err instanceof ChunkFailedAt) {
        accept(heights, err.itemsBefore as (T | undefined)[]);
        fail(err.reason, err.height);
      } else fail(err, heights[0]!);
    } finally {
      inFlight--;
      notify();
      pump();
    }
  }

  function accept(heights: readonly number[], items: readonly (T | undefined)[]): void {
    items.forEach((item, i) => {
      const h = heights[i]!;
      if (item === undefined) {
        // Not produced yet (or block_results lagging): ask again from here once the head moves.
        if (h < frontier) frontier = h;
        if (h <= head) head = h - 1;
      } else if (h >= wanted && !ready.has(h)) {
        const weight = options.weight(item);
        ready.set(h, item);
        bufferedWeight += weight;
        averageWeight = averageWeight === undefined ? weight : averageWeight * 0.9 + weight * 0.1;
      }
    });
  }

  async function refreshHead(): Promise<void> {
    if (refreshingHead || fatal !== undefined || options.signal.aborted) return;
    refreshingHead = true;
    try {
      const wait = lastHeadPoll + options.pollMs - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal: options.signal }).catch(() => undefined);
      lastHeadPoll = Date.now();
      const latest = await withRetry(options.fetchHead, {
        policy: INGEST_RETRY,
        logger: options.logger,
        what: 'node head',
        signal: options.signal,
      });
      if (latest > head) head = latest;
    } catch (err) {
      if (!options.signal.aborted) fail(err, Number.POSITIVE_INFINITY);
    } finally {
      refreshingHead = false;
    }
    pump();
  }

  function take(): T | undefined {
    const item = ready.get(wanted);
    if (item === undefined) return undefined;
    ready.delete(wanted);
    bufferedWeight -= options.weight(item);
    wanted++;
    pump();
    return item;
  }

  pump();

  return {
    async next() {
      for (;;) {
        // Heights before a failure are still delivered (also those of chunks still in flight); the
        // failure surfaces where it stops progress, so a later height's error never jumps ahead.
        const item = take();
        if (item !== undefined) return item;
        if (fatal !== undefined && (wanted >= fatal.height || inFlight === 0)) throw fatal.err;
        if (options.signal.aborted) throw options.signal.reason ?? new Error('aborted');
        pump();
        await new Promise<void>((resolve) => {
          const onAbort = () => resolve();
          options.signal.addEventListener('abort', onAbort, { once: true });
          wake = () => {
            options.signal.removeEventListener('abort', onAbort);
            resolve();
          };
        });
      }
    },
    takeReady: take,
    knownHead: () => head,
    depth: () => ({ buffered: ready.size, inFlight }),
  };
}
