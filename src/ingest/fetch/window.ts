import { AppError, errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import {
  abortableDelay,
  INGEST_RETRY,
  withRetry,
  type RetryPolicy,
  type WaitReport,
} from '../../node/retry.js';

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
  /**
   * The part (0–1] of `maxChunksInFlight` and `maxBufferedWeight` this window may use now, asked
   * each time it would request more: the chains of a deployment share one process's budget
   * (docs/chains.md §8). Default 1. Two chunks (within the limit) and one chunk's weight are always allowed.
   */
  share?: (() => number) | undefined;
  /**
   * Whether this chain gives way now: another chain of the deployment is at its head
   * (docs/chains.md §5). Asked each time the window would request more; default never.
   */
  givesWay?: (() => boolean) | undefined;
  /** How long a catch-up gives way at most (default PACED_MAX_MS; tests shrink it). */
  pacedMaxMs?: number | undefined;
  /** Head polling interval once caught up. */
  pollMs: number;
  logger: Logger;
  signal: AbortSignal;
  /**
   * Backoff of a chunk (and of the head) towards the node, without an attempt budget: an outage of
   * any length is waited for (docs/ingest.md §10). Default INGEST_RETRY.
   */
  retry?: RetryPolicy | undefined;
  /** Where the block stream waiting for the node says so (`/status`'s `waiting`). */
  report?: WaitReport | undefined;
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

/** The window's state, shared by the steps below. */
interface WindowState<T> {
  options: FetchWindowOptions<T>;
  ready: Map<number, T>;
  /** The next height the consumer takes. */
  wanted: number;
  /** The lowest height not requested yet. */
  frontier: number;
  head: number;
  inFlight: number;
  bufferedWeight: number;
  refreshingHead: boolean;
  lastHeadPoll: number;
  /** The failure at the lowest height; raised once every height before it has been delivered. */
  fatal: { height: number; err: unknown } | undefined;
  /** Running average weight of the items seen so far (undefined until the first one). */
  averageWeight: number | undefined;
  wake: (() => void) | undefined;
  /** While paced: no request before this time (epoch ms), the end of the pause after a chunk. */
  pacedUntil: number;
  /** A pump is scheduled for the pause's end (one at a time). */
  pumpAfterPause: boolean;
  /** When this catch-up first gave way (epoch ms); cleared once the head is within a chunk. */
  pacedSince: number | undefined;
}

/**
 * A chain catching up while another is at its head gives way (docs/chains.md §5): one chunk of at
 * most PACED_CHUNK heights at a time, and after each a pause as long as the chunk took, so its
 * node, its share of the prepare threads and its commits work at most half the time. At full
 * speed a returning node's 90 blocks saturated both cores of the bench's host for a second, and
 * the others' blocks in that second took 2-5x longer to arrive.
 */
export const PACED_CHUNK = 5;
/**
 * A catch-up gives way for at most this long, then takes full speed until it is within a chunk of
 * its head: a backfill (a new chain, a re-index, a long outage) would take hours paced, and a
 * chain making blocks faster than its paced rate (a fast chain, a distant node) would never
 * catch up.
 */
export const PACED_MAX_MS = 10_000;

function paced<T>(st: WindowState<T>): boolean {
  if (st.head - st.frontier + 1 <= PACED_CHUNK) return false;
  // Its time spent, a catch-up goes on at full speed without asking the deployment again.
  const spent =
    st.pacedSince !== undefined && Date.now() - st.pacedSince >= (st.options.pacedMaxMs ?? PACED_MAX_MS);
  if (spent || st.options.givesWay?.() !== true) return false;
  st.pacedSince ??= Date.now();
  return true;
}

function notify<T>(st: WindowState<T>): void {
  const w = st.wake;
  st.wake = undefined;
  w?.();
}

function fail<T>(st: WindowState<T>, err: unknown, height: number): void {
  if (st.fatal === undefined || height < st.fatal.height) st.fatal = { height, err };
  notify(st);
}

/** The window's limits now: its share of the configured ones. */
function limitsOf<T>(st: WindowState<T>): { chunks: number; weight: number } {
  const { options } = st;
  const share = Math.min(1, Math.max(0, options.share?.() ?? 1));
  return {
    // Two chunks at least (when allowed at all): one landing while the next is asked for.
    chunks: Math.max(Math.min(2, options.maxChunksInFlight), Math.round(options.maxChunksInFlight * share)),
    weight: Math.min(
      options.maxBufferedWeight,
      Math.max(options.chunkWeight, options.maxBufferedWeight * share),
    ),
  };
}

function pump<T>(st: WindowState<T>): void {
  const { options } = st;
  if (st.fatal !== undefined || options.signal.aborted) return;
  const pace = paced(st);
  if (pace && Date.now() < st.pacedUntil) return pumpLater(st);
  const limits = limitsOf(st);
  if (pace) limits.chunks = 1;
  while (st.inFlight < limits.chunks && st.frontier <= st.head && st.bufferedWeight < limits.weight) {
    const size = pace ? Math.min(PACED_CHUNK, chunkHeights(st)) : chunkHeights(st);
    const end = Math.min(st.head, st.frontier + size - 1);
    const heights = Array.from({ length: end - st.frontier + 1 }, (_, i) => st.frontier + i);
    st.frontier = end + 1;
    st.inFlight++;
    void runChunk(st, heights, pace);
  }
  if (st.frontier > st.head && st.inFlight === 0) void refreshHead(st);
}

/** Pumps again once the pause after a paced chunk is over (at once if the run stops). */
function pumpLater<T>(st: WindowState<T>): void {
  if (st.pumpAfterPause) return;
  st.pumpAfterPause = true;
  void abortableDelay(st.pacedUntil - Date.now(), st.options.signal).then(() => {
    st.pumpAfterPause = false;
    pump(st);
  });
}

function chunkHeights<T>(st: WindowState<T>): number {
  const { options } = st;
  if (st.averageWeight === undefined) return options.chunkSize;
  return Math.max(1, Math.min(options.chunkSize, Math.floor(options.chunkWeight / st.averageWeight)));
}

/** Fetches a chunk; a paced one (asked while giving way) is followed by a pause as long as it took. */
async function runChunk<T>(st: WindowState<T>, heights: number[], pace: boolean): Promise<void> {
  const { options } = st;
  const began = Date.now();
  try {
    const items = await withRetry(() => options.fetchChunk(heights), {
      policy: options.retry ?? INGEST_RETRY,
      logger: options.logger,
      what: `heights ${heights[0]}-${heights[heights.length - 1]}`,
      signal: options.signal,
      report: options.report,
    });
    accept(st, heights, items);
  } catch (err) {
    if (err instanceof ChunkFailedAt) {
      accept(st, heights, err.itemsBefore as (T | undefined)[]);
      fail(st, err.reason, err.height);
    } else fail(st, err, heights[0]!);
  } finally {
    st.inFlight--;
    if (pace) {
      const now = Date.now();
      st.pacedUntil = now + (now - began); // a pause as long as the chunk took
    }
    notify(st);
    pump(st);
  }
}

function accept<T>(st: WindowState<T>, heights: readonly number[], items: readonly (T | undefined)[]): void {
  items.forEach((item, i) => {
    const h = heights[i]!;
    if (item === undefined) {
      // Not produced yet (or block_results lagging): ask again from here once the head moves.
      if (h < st.frontier) st.frontier = h;
      if (h <= st.head) st.head = h - 1;
    } else if (h >= st.wanted && !st.ready.has(h)) {
      const weight = st.options.weight(item);
      st.ready.set(h, item);
      st.bufferedWeight += weight;
      st.averageWeight = st.averageWeight === undefined ? weight : st.averageWeight * 0.9 + weight * 0.1;
    }
  });
}

async function refreshHead<T>(st: WindowState<T>): Promise<void> {
  const { options } = st;
  if (st.refreshingHead || st.fatal !== undefined || options.signal.aborted) return;
  st.refreshingHead = true;
  try {
    const wait = st.lastHeadPoll + options.pollMs - Date.now();
    if (wait > 0) await abortableDelay(wait, options.signal);
    st.lastHeadPoll = Date.now();
    const latest = await withRetry(options.fetchHead, {
      policy: options.retry ?? INGEST_RETRY,
      logger: options.logger,
      what: 'node head',
      signal: options.signal,
      report: options.report,
    });
    if (latest > st.head) st.head = latest;
    // Within a chunk of the head: caught up, and the next catch-up may give way again (a catch-up's
    // next round finds more than a chunk and keeps its clock).
    if (st.head - st.frontier + 1 <= PACED_CHUNK) st.pacedSince = undefined;
  } catch (err) {
    if (!options.signal.aborted) fail(st, err, Number.POSITIVE_INFINITY);
  } finally {
    st.refreshingHead = false;
  }
  pump(st);
}

function take<T>(st: WindowState<T>): T | undefined {
  const item = st.ready.get(st.wanted);
  if (item === undefined) return undefined;
  st.ready.delete(st.wanted);
  st.bufferedWeight -= st.options.weight(item);
  st.wanted++;
  pump(st);
  return item;
}

/** The next height's item, in order: waits for it, or raises the failure that stops progress. */
async function nextItem<T>(st: WindowState<T>): Promise<T> {
  const { options } = st;
  for (;;) {
    // Heights before a failure are still delivered (also those of chunks still in flight); the
    // failure surfaces where it stops progress, so a later height's error never jumps ahead.
    const item = take(st);
    if (item !== undefined) return item;
    if (st.fatal !== undefined && (st.wanted >= st.fatal.height || st.inFlight === 0)) throw st.fatal.err;
    if (options.signal.aborted) throw options.signal.reason ?? new Error('aborted');
    pump(st);
    await new Promise<void>((resolve) => {
      const onAbort = () => resolve();
      options.signal.addEventListener('abort', onAbort, { once: true });
      st.wake = () => {
        options.signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }
}

/**
 * A bounded, order-preserving window of heights in flight. Chunks of consecutive heights are
 * requested concurrently; results are buffered until the consumer asks for them in order. A
 * height that is not produced yet is re-requested after the head moves, so no height is ever
 * skipped; transient failures are retried with backoff; a fatal one is raised to the consumer.
 */
export function createFetchWindow<T>(options: FetchWindowOptions<T>): FetchWindow<T> {
  const st: WindowState<T> = {
    options,
    ready: new Map(),
    wanted: options.start,
    frontier: options.start,
    head: options.start - 1,
    inFlight: 0,
    bufferedWeight: 0,
    refreshingHead: false,
    lastHeadPoll: 0,
    fatal: undefined,
    averageWeight: undefined,
    wake: undefined,
    pacedUntil: 0,
    pumpAfterPause: false,
    pacedSince: undefined,
  };
  pump(st);
  return {
    next: () => nextItem(st),
    takeReady: () => take(st),
    knownHead: () => st.head,
    depth: () => ({ buffered: st.ready.size, inFlight: st.inFlight }),
  };
}
