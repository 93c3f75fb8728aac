/**
 * A prepare worker (worker thread): fetches chunks of heights from the node and prepares them into
 * rows, as the in-thread path does, so the main thread only orders and writes. It has its own node
 * clients; their metrics, the rich-list balance changes of the fetched blocks and its log lines go
 * to the main thread with the replies.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { createCometClient, type CometClient } from '../../node/cometbft.js';
import { createEvmClient } from '../../node/evm.js';
import { createRestClient } from '../../node/rest.js';
import { createTransport, type PooledTransport } from '../../node/transport.js';
import { evmChainIdOf, PROBES } from '../../node/endpoint-probes.js';
import type { Logger } from '../../shared/logger.js';
import { createIngestNftCollector } from '../collect/nft-collector.js';
import { ChunkFailedAt } from '../fetch/window.js';
import { createChunkPreparer } from './chunk.js';
import type { PreparedBlock } from './block.js';
import {
  errorToWire,
  recordingNodeMetrics,
  type ChunkRequest,
  type MetricEvent,
  type PrepareWorkerConfig,
  type TakenBalanceChanges,
  type WorkerMessage,
} from './worker-messages.js';
import { balanceChangesOf } from '../derive/rich-list-sources.js';
import { createIngestDecoder } from '../decode/ingest-decoder.js';

const port = parentPort!;
const config = workerData as PrepareWorkerConfig;
const post = (message: WorkerMessage) => port.postMessage(message);

// Lines go to the main thread's logger, which owns the output (format, destination).
const logger: Logger = pino(
  { level: config.logLevel },
  { write: (line: string) => post({ kind: 'log', line }) },
);

// Recorded since the last reply; every reply drains them (counts are sums, so any reply will do).
const metrics: MetricEvent[] = [];
let taken: TakenBalanceChanges = [];

const transports: PooledTransport[] = [];
const transport = (name: keyof typeof PROBES, endpoints: string[]) => {
  const opened = createTransport({
    name,
    endpoints,
    timeoutMs: config.requestTimeoutMs,
    maxConcurrent: config.maxConcurrentRequests,
    metrics: recordingNodeMetrics(metrics),
    probe: PROBES[name],
    chainId: name === 'jsonrpc' ? evmChainIdOf(config.chainId) : config.chainId,
    logger,
  });
  transports.push(opened);
  return opened;
};
// Opened in the main thread's order (RPC, REST, JSON-RPC): /status/endpoints lists them so.
const comet = withBalanceChanges(createCometClient(transport('rpc', config.endpoints.rpc)));
const rest = createRestClient(transport('rest', config.endpoints.rest));
const evm = config.vm === 'evm' ? createEvmClient(transport('jsonrpc', config.endpoints.jsonRpc)) : undefined;
// Never aborted: stopping a worker terminates it, which ends its look-ups too.
const never = new AbortController().signal;
const nft = config.nft
  ? createIngestNftCollector({
      vm: config.vm,
      prefix: config.accountPrefix,
      rest,
      logger,
      signal: never,
      lookupAttempts: config.nft.lookupAttempts,
      retry: config.nft.retry,
    })
  : undefined;
const preparer = createChunkPreparer({
  chainId: config.chainId,
  comet,
  rest,
  evm,
  decoder: createIngestDecoder({ prefix: config.accountPrefix, protoExtensions: config.protoExtensions }),
  accountPrefix: config.accountPrefix,
  nft,
  logger,
});

/** The rich-list stage's extract of each block as it is fetched (the in-thread path's tap). */
function withBalanceChanges(client: CometClient): CometClient {
  if (!config.balanceChanges) return client;
  const extract = balanceChangesOf(config.vm, config.accountPrefix);
  return {
    ...client,
    async fetchBlocks(heights, consumer) {
      const blocks = await client.fetchBlocks(heights, consumer);
      for (const block of blocks) {
        if (!block) continue;
        try {
          taken.push({ height: block.height, items: extract(block) });
        } catch {
          // the stage reads this height itself, and meets the failure there
        }
      }
      return blocks;
    },
  };
}

function reply(
  id: number,
  answer: Pick<Extract<WorkerMessage, { kind: 'chunk' }>, 'items' | 'error' | 'failedAt'>,
) {
  const message: WorkerMessage = {
    kind: 'chunk',
    id,
    ...answer,
    metrics: metrics.splice(0),
    taken,
    endpoints: transports.flatMap((t) => t.endpoints()),
  };
  taken = [];
  post(message);
}

port.on('message', (req: ChunkRequest) => {
  preparer.prepare(req.heights).then(
    (items) => reply(req.id, { items }),
    (err: unknown) =>
      err instanceof ChunkFailedAt
        ? reply(req.id, {
            items: err.itemsBefore as (PreparedBlock | undefined)[],
            error: errorToWire(err.reason),
            failedAt: err.height,
          })
        : reply(req.id, { items: [], error: errorToWire(err) }),
  );
});
