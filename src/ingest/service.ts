import type { IngestOptions } from '../shared/config.js';
import { AppError, InputError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Registry } from '../shared/metrics.js';
import { createCometClient, type CometClient } from '../node/cometbft.js';
import { createEvmClient } from '../node/evm.js';
import { createNodeMetrics } from '../node/metrics.js';
import { createRestClient } from '../node/rest.js';
import { INGEST_RETRY, withRetry } from '../node/retry.js';
import { createTransport, type Transport } from '../node/transport.js';
import type { Db } from '../store/driver/db.js';
import { ensureChainMeta, type ChainMeta } from '../store/writers/chain-meta.js';
import type { Checkpoint } from '../store/writers/rows.js';
import { createBlockWriter } from '../store/writers/block-writer.js';
import { discoverChain } from './fetch/discover-chain.js';
import { createIngestMetrics, type IngestMetrics } from './metrics.js';
import { runPipeline, type PipelineTuning, type Progress } from './pipeline.js';
import { createIngestDecoder } from './decode/ingest-decoder.js';
import { createIngestNftCollector } from './collect/nft-collector.js';
import { createBlockHead } from './derive/block-head.js';
import { createDerivations } from './derive/registry.js';
import { createChunkPreparer, type ChunkPreparer } from './prepare/chunk.js';
import { createPrepareWorkers } from './prepare/worker-pool.js';

export interface IngestService {
  chain: ChainMeta;
  /** Indexes until aborted (or until `untilHeight` is committed). */
  run(options: {
    signal: AbortSignal;
    untilHeight?: number;
    tuning?: Partial<PipelineTuning>;
    onCommit?: (p: Progress) => void;
  }): Promise<void>;
  /** Last committed height. */
  height(): number;
  close(): Promise<void>;
}

const NODE_TIMEOUT_MS = 30_000;

/** Wires node clients, decoder and writer; checks the chain against the database. */
export async function createIngestService(ctx: {
  options: Pick<
    IngestOptions,
    'chainId' | 'vmType' | 'endpoints' | 'maxConcurrentRequests' | 'accountPrefix' | 'startHeight'
  > &
    Partial<Pick<IngestOptions, 'internalTx' | 'richList' | 'prepareWorkers'>> & {
      /** Collect NFTs (default true; false for a bench comparison or a chain without NFTs). */
      nftIndexing?: boolean;
      /** Attempts per NFT look-up before ingest stops (default 10). */
      nftLookupAttempts?: number;
      /** Per-request timeout towards the node (default 30 s). */
      requestTimeoutMs?: number;
    };
  logger: Logger;
  db: Db;
  registry: Registry;
  /** Created by the caller when it reports the checkpoint height before the node answers. */
  metrics?: IngestMetrics;
  /** Told when the node does not answer during start-up (it is waited for). */
  onNodeRetry?: (err: Error) => void;
  signal?: AbortSignal;
}): Promise<IngestService> {
  const { options, logger, db } = ctx;
  const nodeMetrics = createNodeMetrics(ctx.registry);
  const transport = (name: string, endpoints: string[]): Transport =>
    createTransport({
      name,
      endpoints,
      timeoutMs: options.requestTimeoutMs ?? NODE_TIMEOUT_MS,
      maxConcurrent: options.maxConcurrentRequests,
      metrics: nodeMetrics,
    });
  const transports = [transport('rpc', options.endpoints.rpc), transport('rest', options.endpoints.rest)];
  const comet = createCometClient(transports[0]!);
  const rest = createRestClient(transports[1]!);
  // A node that is down at start-up is waited for (with backoff), like one that fails later.
  const untilNodeAnswers = <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      policy: INGEST_RETRY,
      logger,
      what,
      ...(ctx.onNodeRetry ? { onRetry: ctx.onNodeRetry } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  const chain = await untilNodeAnswers('node status', () => discoverChain(options, { comet, rest }));
  const evmTransport = chain.vmType === 'evm' ? transport('jsonrpc', options.endpoints.jsonRpc) : undefined;
  if (evmTransport) transports.push(evmTransport);
  await ensureChainMeta(db, chain);

  const writer = await createBlockWriter(db);
  await untilNodeAnswers('checkpoint block', () => verifyCheckpointHash(writer.checkpoint(), comet, logger));
  if (writer.checkpoint().height === 0) {
    const status = await untilNodeAnswers('node status', () => comet.status());
    const start = Math.max(options.startHeight ?? 1, status.earliestHeight, 1);
    if (start > 1) await writer.startAt(start);
  } else if (options.startHeight !== undefined && options.startHeight !== writer.checkpoint().height + 1) {
    logger.warn(
      { startHeight: options.startHeight, resumeAt: writer.checkpoint().height + 1 },
      'START_HEIGHT ignored: resuming from the checkpoint',
    );
  }
  const metrics = ctx.metrics ?? createIngestMetrics(ctx.registry);
  metrics.height.set(writer.checkpoint().height);
  const evm = evmTransport ? createEvmClient(evmTransport) : undefined;
  const nftCollector = (signal: AbortSignal) =>
    options.nftIndexing === false
      ? undefined
      : createIngestNftCollector({
          vm: chain.vmType,
          prefix: options.accountPrefix,
          rest,
          logger,
          signal,
          lookupAttempts: options.nftLookupAttempts,
        });
  const stages = createDerivations({
    chain,
    options: { internalTx: options.internalTx, richList: options.richList ?? true },
    db,
    comet,
    rest,
    evm,
    accountPrefix: options.accountPrefix,
    signal: ctx.signal,
  });

  // The block pipeline's fetches, shown to the derivations that take something from each block.
  const tapped = stages.filter((stage) => stage.onBlocks);
  const pipelineComet: CometClient =
    tapped.length === 0
      ? comet
      : {
          ...comet,
          async fetchBlocks(heights, consumer) {
            const blocks = await comet.fetchBlocks(heights, consumer);
            for (const stage of tapped) stage.onBlocks!(blocks);
            return blocks;
          },
        };

  // Library callers (tests, benchmarks) prepare in this thread unless they ask; the CLI sets it.
  const workers = options.prepareWorkers ?? 0;
  const openPreparer = (signal: AbortSignal): ChunkPreparer =>
    workers > 0
      ? createPrepareWorkers({
          count: workers,
          config: {
            vm: chain.vmType,
            endpoints: { ...options.endpoints, jsonRpc: evmTransport ? options.endpoints.jsonRpc : [] },
            maxConcurrentRequests: options.maxConcurrentRequests,
            requestTimeoutMs: options.requestTimeoutMs ?? NODE_TIMEOUT_MS,
            accountPrefix: options.accountPrefix,
            nft: options.nftIndexing === false ? undefined : { lookupAttempts: options.nftLookupAttempts },
            balanceChanges: tapped.length > 0,
            logLevel: logger.level,
          },
          logger,
          nodeMetrics,
          onBalanceChanges: (taken) => stages.forEach((stage) => stage.onBalanceChanges?.(taken)),
        })
      : createChunkPreparer({
          comet: pipelineComet,
          rest,
          evm,
          decoder: createIngestDecoder({ prefix: options.accountPrefix }),
          accountPrefix: options.accountPrefix,
          nft: nftCollector(signal),
        });

  return {
    chain,
    height: () => writer.checkpoint().height,
    async run(runOptions) {
      logger.info(
        { chainId: chain.chainId, vm: chain.vmType, from: writer.checkpoint().height + 1 },
        'ingest started',
      );
      // One failing part stops the others: the checkpoints say where each resumes.
      const failed = new AbortController();
      const signal = AbortSignal.any([runOptions.signal, failed.signal]);
      const head = createBlockHead(() => writer.checkpoint().height);
      const stageDeps = { db, logger, metrics, head };
      const preparer = openPreparer(runOptions.signal);
      const parts = [
        runPipeline(
          { logger, writer, comet, prepareChunk: preparer.prepare, metrics },
          {
            ...runOptions,
            signal,
            onCommit: (p) => {
              head.notify();
              runOptions.onCommit?.(p);
            },
          },
        ).finally(() => (head.finish(), preparer.close())),
        ...stages.map((stage) =>
          stage.run(stageDeps, {
            signal,
            ...(runOptions.untilHeight !== undefined ? { untilHeight: runOptions.untilHeight } : {}),
          }),
        ),
      ].map((part) =>
        part.catch((err: unknown) => {
          failed.abort();
          throw err;
        }),
      );
      const outcomes = await Promise.allSettled(parts);
      logger.info({ height: writer.checkpoint().height }, 'ingest stopped');
      const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failure) throw failure.reason;
    },
    async close() {
      await Promise.all(transports.map((t) => t.close()));
    },
  };
}

/**
 * On resume, the block at the checkpoint must be the node's block at that height: a different hash
 * means the node serves another chain (or was reset), and continuing would mix two histories.
 */
async function verifyCheckpointHash(
  checkpoint: Checkpoint,
  comet: CometClient,
  logger: Logger,
): Promise<void> {
  if (checkpoint.height === 0 || checkpoint.blockHash === null) return;
  let block;
  try {
    [block] = await comet.fetchBlocks([checkpoint.height]);
  } catch (err) {
    if (err instanceof AppError && err.code === 'height_pruned') {
      logger.warn({ height: checkpoint.height }, 'checkpoint block is pruned on the node; hash not verified');
      return;
    }
    throw err;
  }
  if (block === undefined) {
    logger.warn({ height: checkpoint.height }, 'node is behind the database; waiting for it to catch up');
    return;
  }
  const stored = Buffer.from(checkpoint.blockHash).toString('hex').toUpperCase();
  if (block.hash !== stored) {
    throw new InputError(
      'chain_mismatch',
      `block ${checkpoint.height} is ${block.hash} on the node but ${stored} in the database: the node serves another chain or was reset; use another database`,
    );
  }
}
