import type { IngestOptions } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { Registry } from '../shared/metrics.js';
import type { NodeWaits } from '../shared/node-waits.js';
import type { MessageSchema } from '../shared/proto/schema.js';
import type { RetryPolicy } from '../node/retry.js';
import type { Db } from '../store/driver/db.js';
import type { IngestMetrics } from './metrics.js';
import type { PreparePool } from './prepare/worker-pool.js';

/** What an ingest service is built from (createIngestService, src/ingest/service.ts). */
/** Per-request timeout towards the node unless the options say. */
export const NODE_TIMEOUT_MS = 30_000;

export interface IngestServiceContext {
  options: Pick<
    IngestOptions,
    'chainId' | 'vmType' | 'endpoints' | 'maxConcurrentRequests' | 'accountPrefix' | 'startHeight'
  > &
    Partial<Pick<IngestOptions, 'internalTx' | 'richList' | 'prepareWorkers'>> & {
      /** Collect NFTs (default true; false for a bench comparison or a chain without NFTs). */
      nftIndexing?: boolean;
      /** Attempts per NFT look-up before the block stream retries its chunk (default 10). */
      nftLookupAttempts?: number;
      /**
       * Backoff towards the node (default INGEST_RETRY). Node reads wait without an attempt budget
       * (docs/ingest.md §10); tests shrink the cap to make an outage long in attempts, not seconds.
       */
      nodeRetry?: RetryPolicy;
      /** Per-request timeout towards the node (default 30 s). */
      requestTimeoutMs?: number;
      /** Message schemas added to the decoder's registry (tests: a later release's types). */
      protoExtensions?: readonly MessageSchema[];
    };
  logger: Logger;
  db: Db;
  registry: Registry;
  /** Created by the caller when it reports the checkpoint height before the node answers. */
  metrics?: IngestMetrics;
  /** Told when the node does not answer during start-up (it is waited for). */
  onNodeRetry?: (err: Error) => void;
  /** Where every part waiting for the node says so; the API of the same process reads it. */
  waits?: NodeWaits;
  signal?: AbortSignal;
  /**
   * Prepare threads shared with the other chains of a deployment (docs/chains.md §7); without it,
   * `options.prepareWorkers` threads of the chain's own (0: this thread).
   */
  preparePool?: PreparePool;
}
