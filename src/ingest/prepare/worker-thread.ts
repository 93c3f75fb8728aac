/**
 * A prepare worker (worker thread): fetches chunks of heights from the node and prepares them into
 * rows, as the in-thread path does, so the main thread only orders and writes. It serves every
 * chain attached to its pool (docs/chains.md §7), each with its own node clients, decoder and
 * memos; their metrics, the rich-list balance changes of the fetched blocks and the log lines go to
 * the main thread with the replies, per chain.
 */
import { parentPort } from 'node:worker_threads';
import { pino } from 'pino';
import { createCometClient, type CometClient } from '../../node/cometbft.js';
import { createEvmClient } from '../../node/evm.js';
import { createRestClient } from '../../node/rest.js';
import { createTransport, type PooledTransport } from '../../node/transport.js';
import { evmChainIdOf, PROBES } from '../../node/endpoint-probes.js';
import type { Logger } from '../../shared/logger.js';
import { createIngestNftCollector } from '../collect/nft-collector.js';
import { ChunkFailedAt } from '../fetch/window.js';
import { createChunkPreparer, type ChunkPreparer } from './chunk.js';
import type { PreparedBlock } from './block.js';
import {
  errorToWire,
  recordingNodeMetrics,
  type MetricEvent,
  type PoolRequest,
  type PrepareWorkerConfig,
  type TakenBalanceChanges,
  type WorkerMessage,
} from './worker-messages.js';
import { balanceChangesOf } from '../derive/rich-list-sources.js';
import { createIngestDecoder } from '../decode/ingest-decoder.js';

const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);

/** One attached chain's clients and what it recorded since its last reply. */
interface ChainContext {
  preparer: ChunkPreparer;
  transports: PooledTransport[];
  /** Recorded since the chain's last reply; every reply drains them (counts are sums, so any reply will do). */
  metrics: MetricEvent[];
  taken: TakenBalanceChanges;
  stop: AbortController;
}

const chains = new Map<number, ChainContext>();

function openChain(chain: number, config: PrepareWorkerConfig): ChainContext {
  // Lines go to the main thread's logger of the chain, which owns the output (format, destination).
  const logger: Logger = pino(
    { level: config.logLevel },
    { write: (line: string) => post({ kind: 'log', chain, line }) },
  );
  const ctx: Omit<ChainContext, 'preparer'> = {
    transports: [],
    metrics: [],
    taken: [],
    stop: new AbortController(),
  };
  const transport = (name: keyof typeof PROBES, endpoints: string[]) => {
    const opened = createTransport({
      name,
      endpoints,
      timeoutMs: config.requestTimeoutMs,
      maxConcurrent: config.maxConcurrentRequests,
      metrics: recordingNodeMetrics(ctx.metrics),
      probe: PROBES[name],
      chainId: name === 'jsonrpc' ? evmChainIdOf(config.chainId) : config.chainId,
      logger,
    });
    ctx.transports.push(opened);
    return opened;
  };
  // Opened in the main thread's order (RPC, REST, JSON-RPC): /status/endpoints lists them so.
  const comet = withBalanceChanges(createCometClient(transport('rpc', config.endpoints.rpc)), config, ctx);
  const rest = createRestClient(transport('rest', config.endpoints.rest));
  const evm =
    config.vm === 'evm' ? createEvmClient(transport('jsonrpc', config.endpoints.jsonRpc)) : undefined;
  const nft = config.nft
    ? createIngestNftCollector({
        vm: config.vm,
        prefix: config.accountPrefix,
        rest,
        logger,
        signal: ctx.stop.signal,
        lookupAttempts: config.nft.lookupAttempts,
        retry: config.nft.retry,
      })
    : undefined;
  const preparer = createChunkPreparer({
    chainId: config.chainId,
    comet,
    rest,
    evm,
    decoder: createIngestDecoder({
      prefix: config.accountPrefix,
      protoExtensions: config.protoExtensions,
    }),
    accountPrefix: config.accountPrefix,
    nft,
    logger,
  });
  return { ...ctx, preparer };
}

/** The rich-list stage's extract of each block as it is fetched (the in-thread path's tap). */
function withBalanceChanges(
  client: CometClient,
  config: PrepareWorkerConfig,
  ctx: Pick<ChainContext, 'taken'>,
): CometClient {
  if (!config.balanceChanges) return client;
  const extract = balanceChangesOf(config.vm, config.accountPrefix);
  return {
    ...client,
    async fetchBlocks(heights, consumer) {
      const blocks = await client.fetchBlocks(heights, consumer);
      for (const block of blocks) {
        if (!block) continue;
        try {
          ctx.taken.push({ height: block.height, items: extract(block) });
        } catch {
          // the stage reads this height itself, and meets the failure there
        }
      }
      return blocks;
    },
  };
}

function reply(
  chain: number,
  ctx: ChainContext,
  id: number,
  answer: Pick<Extract<WorkerMessage, { kind: 'chunk' }>, 'items' | 'error' | 'failedAt'>,
) {
  const message: WorkerMessage = {
    kind: 'chunk',
    chain,
    id,
    ...answer,
    metrics: ctx.metrics.splice(0),
    taken: ctx.taken.splice(0),
    endpoints: ctx.transports.flatMap((t) => t.endpoints()),
  };
  post(message);
}

function prepareChunk(chain: number, id: number, heights: number[]): void {
  const ctx = chains.get(chain);
  // Detached or never opened (the pool was told why): nobody awaits the answer, but the pool
  // counts the chunk as done when it comes.
  if (!ctx) return post({ kind: 'chunk', chain, id, items: [], metrics: [], taken: [], endpoints: [] });
  ctx.preparer.prepare(heights).then(
    (items) => reply(chain, ctx, id, { items }),
    (err: unknown) =>
      err instanceof ChunkFailedAt
        ? reply(chain, ctx, id, {
            items: err.itemsBefore as (PreparedBlock | undefined)[],
            error: errorToWire(err.reason),
            failedAt: err.height,
          })
        : reply(chain, ctx, id, { items: [], error: errorToWire(err) }),
  );
}

port.on('message', (req: PoolRequest) => {
  if (req.kind === 'chunk') return prepareChunk(req.chain, req.id, req.heights);
  if (req.kind === 'attach') {
    try {
      chains.set(req.chain, openChain(req.chain, req.config));
    } catch (err) {
      post({ kind: 'attach_failed', chain: req.chain, error: errorToWire(err) });
    }
    return;
  }
  const ctx = chains.get(req.chain);
  chains.delete(req.chain);
  if (!ctx) return;
  ctx.stop.abort();
  void Promise.all([ctx.preparer.close(), ...ctx.transports.map((t) => t.close())]).catch(() => undefined);
});
