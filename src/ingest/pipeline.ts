import type { Logger } from '../shared/logger.js';
import type { CometClient } from '../node/cometbft.js';
import type { RetryPolicy } from '../node/retry.js';
import type { NodeWaits } from '../shared/node-waits.js';
import type { BlockWriter } from '../store/writers/block-writer.js';
import type { BlockRows } from '../store/writers/rows.js';
import { createFetchWindow, type ChunkFetcher, type FetchWindow } from './fetch/window.js';
import type { IngestMetrics } from './metrics.js';
import type { PreparedBlock } from './prepare/block.js';
import { millisBetween } from './time.js';
import { untilStored } from './until-stored.js';

export interface PipelineDeps {
  logger: Logger;
  writer: BlockWriter;
  /** The node's head (`/status`). */
  comet: Pick<CometClient, 'status'>;
  /** Fetch + prepare of a chunk of heights (in this thread or in prepare workers). */
  prepareChunk: ChunkFetcher<PreparedBlock>;
  metrics: IngestMetrics;
  /** Backoff towards the node, without an attempt budget (default INGEST_RETRY; tests shrink it). */
  retry?: RetryPolicy | undefined;
  /** Where the block stream waiting for the node says so (`/status`'s `waiting`). */
  waits?: NodeWaits | undefined;
}

export interface PipelineTuning {
  chunkSize: number;
  chunkWeight: number;
  maxChunksInFlight: number;
  maxBufferedTxs: number;
  maxBlocksPerCommit: number;
  maxTxsPerCommit: number;
  headPollMs: number;
}

export const DEFAULT_TUNING: PipelineTuning = {
  chunkSize: 20,
  chunkWeight: 400,
  maxChunksInFlight: 6,
  maxBufferedTxs: 4_000,
  maxBlocksPerCommit: 200,
  maxTxsPerCommit: 5_000,
  headPollMs: 20,
};

export interface Progress {
  height: number;
  nodeHeight: number;
  blocks: number;
  txs: number;
}

export interface RunOptions {
  signal: AbortSignal;
  /** Stop once this height is committed. */
  untilHeight?: number;
  tuning?: Partial<PipelineTuning>;
  /**
   * The part (0–1] of the fetch window's chunks in flight and buffered txs this chain may use now
   * (a deployment's chains share one process's budget, docs/chains.md §8); default 1.
   */
  windowShare?: () => number;
  /** Whether a catch-up gives way now: another chain of the deployment is at its head (docs/chains.md §5). */
  givesWay?: () => boolean;
  onCommit?: (progress: Progress) => void;
}

/**
 * Follows the node from the checkpoint: a window of heights is fetched and prepared
 * concurrently, blocks are committed strictly in order in batches (rows + checkpoint in one
 * transaction), and while one batch is being written the next one is assembled.
 */
export async function runPipeline(deps: PipelineDeps, run: RunOptions): Promise<void> {
  const tuning = { ...DEFAULT_TUNING, ...run.tuning };
  // Stops the fetch window's in-flight requests and retries when this run ends for any reason.
  const stopFetching = new AbortController();
  const signal = AbortSignal.any([run.signal, stopFetching.signal]);
  const start = deps.writer.checkpoint().height + 1;
  const window = createFetchWindow<PreparedBlock>({
    start,
    chunkSize: tuning.chunkSize,
    chunkWeight: tuning.chunkWeight,
    maxChunksInFlight: tuning.maxChunksInFlight,
    maxBufferedWeight: tuning.maxBufferedTxs,
    share: run.windowShare,
    givesWay: run.givesWay,
    pollMs: tuning.headPollMs,
    // A block costs about as much memory as a few txs, whatever it holds.
    weight: (b) => 4 + b.txs.length,
    logger: deps.logger,
    signal,
    fetchHead: async () => (await deps.comet.status()).latestHeight,
    fetchChunk: deps.prepareChunk,
    retry: deps.retry,
    report: deps.waits && { waits: deps.waits, part: 'block stream' },
  });

  let previousTime = deps.writer.checkpoint().blockTimestamp;
  let pendingWrite: Promise<void> = Promise.resolve();
  const totals = { blocks: 0, txs: 0 };
  const until = run.untilHeight ?? Number.POSITIVE_INFINITY;
  let nextHeight = start;

  try {
    while (nextHeight <= until && !run.signal.aborted) {
      const batch = await nextBatch(window, tuning, until - nextHeight + 1);
      if (batch.length === 0) break;
      nextHeight += batch.length;
      const rows = batch.map((b) => {
        const blockTimeMs = previousTime === null ? 0 : millisBetween(previousTime, b.time);
        previousTime = b.time;
        return { ...b, block: { ...b.block, blockTimeMs } } satisfies BlockRows;
      });
      const depth = window.depth();
      deps.metrics.queueDepth.set({ kind: 'buffered_blocks' }, depth.buffered);
      deps.metrics.queueDepth.set({ kind: 'chunks_in_flight' }, depth.inFlight);
      await pendingWrite;
      pendingWrite = commit(deps, run.signal, rows, window.knownHead(), totals, run.onCommit);
      // Keep a rejected write from surfacing as unhandled while the next batch is assembled.
      pendingWrite.catch(() => undefined);
    }
  } catch (err) {
    if (!run.signal.aborted) throw err;
  } finally {
    stopFetching.abort();
    await pendingWrite;
  }
}

async function nextBatch(
  window: FetchWindow<PreparedBlock>,
  tuning: PipelineTuning,
  remaining: number,
): Promise<PreparedBlock[]> {
  const first = await window.next();
  const batch = [first];
  let txs = first.txs.length;
  while (batch.length < Math.min(tuning.maxBlocksPerCommit, remaining) && txs < tuning.maxTxsPerCommit) {
    const more = window.takeReady();
    if (!more) break;
    batch.push(more);
    txs += more.txs.length;
  }
  return batch;
}

async function commit(
  deps: PipelineDeps,
  signal: AbortSignal,
  rows: BlockRows[],
  nodeHeight: number,
  totals: { blocks: number; txs: number },
  onCommit: RunOptions['onCommit'],
): Promise<void> {
  const stopTimer = deps.metrics.writeSeconds.startTimer();
  await untilStored(
    async (afterLostCommit) => {
      if (afterLostCommit) await deps.writer.resync();
      const stored = deps.writer.checkpoint().height;
      await deps.writer.write(rows.filter((r) => r.block.height > stored));
    },
    { logger: deps.logger, metrics: deps.metrics, signal },
  );
  stopTimer();
  const txCount = rows.reduce((n, r) => n + r.txs.length, 0);
  const height = rows[rows.length - 1]!.block.height;
  totals.blocks += rows.length;
  totals.txs += txCount;
  deps.metrics.height.set(height);
  deps.metrics.nodeHeight.set(Math.max(nodeHeight, height));
  deps.metrics.blocks.inc(rows.length);
  deps.metrics.txs.inc(txCount);
  deps.logger.debug({ from: rows[0]!.block.height, to: height, txs: txCount }, 'committed blocks');
  onCommit?.({ height, nodeHeight: Math.max(nodeHeight, height), ...totals });
}
