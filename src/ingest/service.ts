import { AppError, InputError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { createCometClient, type CometClient } from '../node/cometbft.js';
import { createEvmClient } from '../node/evm.js';
import { createNodeMetrics, registerEndpointMetrics } from '../node/metrics.js';
import { createRestClient } from '../node/rest.js';
import { INGEST_RETRY, withRetry, type RetryPolicy } from '../node/retry.js';
import { createNodeWaits, type NodeWaits } from '../shared/node-waits.js';
import { createTransport, type PooledTransport } from '../node/transport.js';
import { evmChainIdOf, PROBES } from '../node/endpoint-probes.js';
import type {
  NodeEndpointReport,
  NodeEndpointView,
  PrepareWorkerEndpoints,
} from '../shared/node-endpoint.js';
import type { Db } from '../store/driver/db.js';
import type { ChainMeta } from '../store/readers/chain-meta.js';
import { ensureChainMeta } from '../store/writers/chain-meta.js';
import type { Checkpoint } from '../store/writers/rows.js';
import { createBlockWriter } from '../store/writers/block-writer.js';
import { discoverChain } from './fetch/discover-chain.js';
import { createIngestMetrics, type IngestMetrics } from './metrics.js';
import { runPipeline, type RunOptions } from './pipeline.js';
import { createBlockHead } from './derive/block-head.js';
import { createDerivations } from './derive/registry.js';
import type { ChunkPreparer } from './prepare/chunk.js';

import { preparerFactory } from './preparer.js';
import { NODE_TIMEOUT_MS, type IngestServiceContext } from './service-context.js';

export type { IngestServiceContext } from './service-context.js';

export interface IngestService {
  chain: ChainMeta;
  /** Indexes until aborted (or until `untilHeight` is committed). */
  run(options: RunOptions): Promise<void>;
  /** Last committed height. */
  height(): number;
  /** Every node endpoint of the main thread's pools: chain, heights, health (docs/api.md §4.11). */
  endpoints(): NodeEndpointView[];
  /** Those, and each running prepare worker's pools: what `/status/endpoints` serves. */
  endpointReport(): NodeEndpointReport;
  close(): Promise<void>;
}

type Stages = ReturnType<typeof createDerivations>;

/** The node's transports (RPC and REST now, JSON-RPC once the chain is known to be EVM). */
function openNodeTransports(ctx: IngestServiceContext) {
  const { options } = ctx;
  const nodeMetrics = createNodeMetrics(ctx.registry);
  const open = (name: keyof typeof PROBES, endpoints: string[], chainId?: string): PooledTransport =>
    createTransport({
      name,
      endpoints,
      timeoutMs: options.requestTimeoutMs ?? NODE_TIMEOUT_MS,
      maxConcurrent: options.maxConcurrentRequests,
      metrics: nodeMetrics,
      probe: PROBES[name],
      logger: ctx.logger,
      ...(chainId !== undefined ? { chainId } : {}),
    });
  const transports = [
    open('rpc', options.endpoints.rpc, options.chainId),
    open('rest', options.endpoints.rest, options.chainId),
  ];
  return {
    nodeMetrics,
    open,
    transports,
    comet: createCometClient(transports[0]!),
    rest: createRestClient(transports[1]!),
  };
}

/** A node that is down at start-up is waited for (with backoff), like one that fails later. */
function nodeWaiter(ctx: IngestServiceContext, waits: NodeWaits) {
  return <T>(what: string, fn: () => Promise<T>) =>
    withRetry(fn, {
      policy: ctx.options.nodeRetry ?? INGEST_RETRY,
      logger: ctx.logger,
      what,
      report: { waits, part: 'start-up' },
      ...(ctx.onNodeRetry ? { onRetry: ctx.onNodeRetry } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
}

/** A fresh database starts at START_HEIGHT or the node's earliest block; a resumed one at its checkpoint. */
async function settleStartHeight(
  ctx: IngestServiceContext,
  writer: Awaited<ReturnType<typeof createBlockWriter>>,
  comet: CometClient,
  rpc: PooledTransport,
  untilNodeAnswers: ReturnType<typeof nodeWaiter>,
): Promise<void> {
  const { options, logger } = ctx;
  await untilNodeAnswers('checkpoint block', () => verifyCheckpointHash(writer.checkpoint(), comet, logger));
  if (writer.checkpoint().height === 0) {
    const status = await untilNodeAnswers('node status', () => comet.status());
    // The lowest height of the whole pool, not of the endpoint that answered (docs/node-data.md §5.2).
    const earliest = rpc.lowestHeld() ?? status.earliestHeight;
    const start = Math.max(options.startHeight ?? 1, earliest, 1);
    if (start > 1) await writer.startAt(start);
  } else if (options.startHeight !== undefined && options.startHeight !== writer.checkpoint().height + 1) {
    logger.warn(
      { startHeight: options.startHeight, resumeAt: writer.checkpoint().height + 1 },
      'START_HEIGHT ignored: resuming from the checkpoint',
    );
  }
}

/** The block stream's fetches, shown to the stages that take something from each block. */
function tappedComet(comet: CometClient, tapped: Stages): CometClient {
  if (tapped.length === 0) return comet;
  return {
    ...comet,
    async fetchBlocks(heights, consumer) {
      const blocks = await comet.fetchBlocks(heights, consumer);
      for (const stage of tapped) stage.onBlocks!(blocks);
      return blocks;
    },
  };
}

/** Wires node clients, decoder and writer; checks the chain against the database. */
export async function createIngestService(ctx: IngestServiceContext): Promise<IngestService> {
  const { options, logger, db } = ctx;
  const waits = ctx.waits ?? createNodeWaits();
  const retry = options.nodeRetry;
  const metrics = ctx.metrics ?? createIngestMetrics(ctx.registry);
  metrics.watchNodeWaits(waits);
  const node = openNodeTransports(ctx);
  const { comet, rest, transports } = node;
  const untilNodeAnswers = nodeWaiter(ctx, waits);
  const chain = await untilNodeAnswers('node status', () => discoverChain(options, { comet, rest }));
  transports.forEach((t) => t.expectChain(chain.chainId));
  const evmTransport =
    chain.vmType === 'evm'
      ? node.open('jsonrpc', options.endpoints.jsonRpc, evmChainIdOf(chain.chainId))
      : undefined;
  if (evmTransport) transports.push(evmTransport);
  let workerPools: PrepareWorkerEndpoints[] = [];
  const endpointReport = (): NodeEndpointReport => ({
    endpoints: transports.flatMap((t) => t.endpoints()),
    prepare_workers: workerPools,
  });
  registerEndpointMetrics(ctx.registry, endpointReport);
  await ensureChainMeta(db, chain);

  const writer = await createBlockWriter(db);
  await settleStartHeight(ctx, writer, comet, transports[0]!, untilNodeAnswers);
  metrics.height.set(writer.checkpoint().height);
  const evm = evmTransport ? createEvmClient(evmTransport) : undefined;
  const stages = createDerivations({
    chain,
    options: { internalTx: options.internalTx, richList: options.richList ?? true },
    db,
    comet,
    rest,
    evm,
    accountPrefix: options.accountPrefix,
    signal: ctx.signal,
    retry,
    waits,
  });
  const tapped = stages.filter((stage) => stage.onBlocks);
  const openPreparer = preparerFactory(ctx, {
    chain,
    comet: tappedComet(comet, tapped),
    rest,
    evm,
    hasEvmTransport: evmTransport !== undefined,
    nodeMetrics: node.nodeMetrics,
    stages,
    balanceChanges: tapped.length > 0,
    onWorkerEndpoints: (pools) => (workerPools = pools),
  });
  const parts = { db, logger, writer, comet, metrics, stages, openPreparer, node: { retry, waits } };
  return {
    chain,
    height: () => writer.checkpoint().height,
    endpoints: () => transports.flatMap((t) => t.endpoints()),
    endpointReport,
    run: (runOptions) => runIngest(parts, chain, runOptions),
    async close() {
      await Promise.all(transports.map((t) => t.close()));
    },
  };
}

/** The block pipeline and every stage, until aborted; one failing part stops the others. */
async function runIngest(
  parts: {
    db: Db;
    logger: Logger;
    writer: Awaited<ReturnType<typeof createBlockWriter>>;
    comet: CometClient;
    metrics: IngestMetrics;
    stages: Stages;
    openPreparer: (signal: AbortSignal) => ChunkPreparer;
    /** Backoff towards the node and where each part waiting for it says so. */
    node: { retry: RetryPolicy | undefined; waits: NodeWaits };
  },
  chain: ChainMeta,
  runOptions: Parameters<IngestService['run']>[0],
): Promise<void> {
  const { db, logger, writer, comet, metrics, stages } = parts;
  logger.info(
    { chainId: chain.chainId, vm: chain.vmType, from: writer.checkpoint().height + 1 },
    'ingest started',
  );
  // One failing part stops the others: the checkpoints say where each resumes. The run's end
  // stops what its parts leave behind: a chunk fetched past `untilHeight` whose NFT look-ups are
  // still retrying would otherwise keep the process alive after the run returned.
  const stop = new AbortController();
  const signal = AbortSignal.any([runOptions.signal, stop.signal]);
  const head = createBlockHead(() => writer.checkpoint().height);
  const stageDeps = { db, logger, metrics, head, ...parts.node };
  const preparer = parts.openPreparer(signal);
  const running = [
    runPipeline(
      { logger, writer, comet, prepareChunk: preparer.prepare, metrics, ...parts.node },
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
      stop.abort();
      throw err;
    }),
  );
  const outcomes = await Promise.allSettled(running);
  stop.abort();
  logger.info({ height: writer.checkpoint().height }, 'ingest stopped');
  const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failure) throw failure.reason;
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
    // No endpoint keeps the checkpoint's block any more (docs/node-data.md §5.2): nothing to compare with.
    if (err instanceof AppError && (err.code === 'height_pruned' || err.code === 'height_not_held')) {
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
