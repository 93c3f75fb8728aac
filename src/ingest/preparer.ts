import type { CometClient } from '../node/cometbft.js';
import type { createEvmClient } from '../node/evm.js';
import type { createNodeMetrics } from '../node/metrics.js';
import type { createRestClient } from '../node/rest.js';
import type { PrepareWorkerEndpoints } from '../shared/node-endpoint.js';
import type { ChainMeta } from '../store/readers/chain-meta.js';
import { createIngestNftCollector } from './collect/nft-collector.js';
import { createIngestDecoder } from './decode/ingest-decoder.js';
import type { createDerivations } from './derive/registry.js';
import { createChunkPreparer, type ChunkPreparer } from './prepare/chunk.js';
import { createPrepareWorkers } from './prepare/worker-pool.js';
import type { PrepareWorkerConfig, TakenBalanceChanges } from './prepare/worker-messages.js';
import { NODE_TIMEOUT_MS, type IngestServiceContext } from './service-context.js';

/** Where an ingest service prepares its chunks of blocks: this thread, its own threads, or a shared pool. */

/**
 * Library callers (tests, benchmarks) prepare in this thread unless they ask; the CLI sets it, and
 * a deployment hands every chain its one shared pool.
 */
export function preparerFactory(
  ctx: IngestServiceContext,
  deps: {
    chain: ChainMeta;
    comet: CometClient;
    rest: ReturnType<typeof createRestClient>;
    evm: ReturnType<typeof createEvmClient> | undefined;
    hasEvmTransport: boolean;
    nodeMetrics: ReturnType<typeof createNodeMetrics>;
    stages: ReturnType<typeof createDerivations>;
    balanceChanges: boolean;
    onWorkerEndpoints: (pools: PrepareWorkerEndpoints[]) => void;
  },
): (signal: AbortSignal) => ChunkPreparer {
  const { options, logger } = ctx;
  const workers = options.prepareWorkers ?? 0;
  const hooks = {
    logger,
    nodeMetrics: deps.nodeMetrics,
    onBalanceChanges: (taken: TakenBalanceChanges) =>
      deps.stages.forEach((stage) => stage.onBalanceChanges?.(taken)),
    onEndpoints: deps.onWorkerEndpoints,
  };
  const pool = ctx.preparePool;
  return (signal) =>
    pool
      ? pool.attach(workerConfig(ctx, deps), hooks)
      : workers > 0
        ? createPrepareWorkers({ count: workers, config: workerConfig(ctx, deps), ...hooks })
        : createChunkPreparer({
            chainId: deps.chain.chainId,
            comet: deps.comet,
            rest: deps.rest,
            evm: deps.evm,
            decoder: createIngestDecoder({
              prefix: options.accountPrefix,
              protoExtensions: options.protoExtensions,
            }),
            accountPrefix: options.accountPrefix,
            logger,
            nft:
              options.nftIndexing === false
                ? undefined
                : createIngestNftCollector({
                    vm: deps.chain.vmType,
                    prefix: options.accountPrefix,
                    rest: deps.rest,
                    logger,
                    signal,
                    lookupAttempts: options.nftLookupAttempts,
                    retry: options.nodeRetry,
                  }),
          });
}

/** What a prepare thread needs of the chain to fetch and prepare its blocks (plain values). */
function workerConfig(
  ctx: IngestServiceContext,
  deps: { chain: ChainMeta; hasEvmTransport: boolean; balanceChanges: boolean },
): PrepareWorkerConfig {
  const { options } = ctx;
  return {
    vm: deps.chain.vmType,
    chainId: deps.chain.chainId,
    endpoints: { ...options.endpoints, jsonRpc: deps.hasEvmTransport ? options.endpoints.jsonRpc : [] },
    maxConcurrentRequests: options.maxConcurrentRequests,
    requestTimeoutMs: options.requestTimeoutMs ?? NODE_TIMEOUT_MS,
    accountPrefix: options.accountPrefix,
    nft:
      options.nftIndexing === false
        ? undefined
        : { lookupAttempts: options.nftLookupAttempts, retry: options.nodeRetry },
    balanceChanges: deps.balanceChanges,
    logLevel: ctx.logger.level,
    ...(options.protoExtensions ? { protoExtensions: options.protoExtensions } : {}),
  };
}
