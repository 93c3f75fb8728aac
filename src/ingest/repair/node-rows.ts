import type { NodeEndpoints } from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import type { Registry } from '../../shared/metrics.js';
import { createCometClient, type CometClient } from '../../node/cometbft.js';
import { createEvmClient, type EvmClient } from '../../node/evm.js';
import { createNodeMetrics } from '../../node/metrics.js';
import { createRestClient, type RestClient } from '../../node/rest.js';
import { createTransport, type Transport } from '../../node/transport.js';
import type { Db } from '../../store/driver/db.js';
import { readChainMeta, type ChainMeta } from '../../store/readers/chain-meta.js';
import { createIngestDecoder } from '../decode/ingest-decoder.js';
import { discoverChain } from '../fetch/discover-chain.js';
import type { PreparedBlock } from '../prepare/block.js';
import { createChunkPreparer } from '../prepare/chunk.js';

/**
 * What the node says today about heights already indexed, prepared exactly as ingest prepares them
 * (the same fetch, decoder and collectors), for `verify` and `reindex` (docs/ingest.md §11). NFT
 * changes are left out: they need the NFT state before each height, which a range alone cannot
 * give (`reindex --stage nft` re-derives them from the first height).
 */
export interface NodeRows {
  chain: ChainMeta;
  /** The node clients themselves (a stage's own reads: `reindex --stage`, `verify`'s state checks). */
  clients: { comet: CometClient; rest: RestClient; evm: EvmClient | undefined };
  /** The prepared blocks of `heights`, in that order; a height the node does not serve fails. */
  prepare(heights: readonly number[]): Promise<PreparedBlock[]>;
  /** HTTP requests sent to the node so far (retries included). */
  requests(): Promise<number>;
  close(): Promise<void>;
}

export interface NodeRowsOptions {
  endpoints: NodeEndpoints;
  accountPrefix: string;
  maxConcurrentRequests: number;
  requestTimeoutMs: number;
}

/** Node clients for the chain the database holds; a node serving another chain is refused. */
export async function openNodeRows(db: Db, options: NodeRowsOptions, registry: Registry): Promise<NodeRows> {
  const chain = await readChainMeta(db);
  if (!chain) throw new InputError('not_indexed', 'the database holds no chain yet: nothing to compare');
  const metrics = createNodeMetrics(registry);
  const open = (name: string, endpoints: string[]): Transport =>
    createTransport({
      name,
      endpoints,
      timeoutMs: options.requestTimeoutMs,
      maxConcurrent: options.maxConcurrentRequests,
      metrics,
    });
  const transports = [open('rpc', options.endpoints.rpc), open('rest', options.endpoints.rest)];
  const comet = createCometClient(transports[0]!);
  const rest = createRestClient(transports[1]!);
  const closeAll = () => Promise.all(transports.map((t) => t.close())).then(() => undefined);
  try {
    await discoverChain(chain, { comet, rest });
  } catch (err) {
    await closeAll();
    throw err;
  }
  if (chain.vmType === 'evm') {
    if (options.endpoints.jsonRpc.length === 0) {
      await closeAll();
      throw new InputError('invalid_config', 'JSON_RPC_URL is required: the database holds an EVM chain');
    }
    transports.push(open('jsonrpc', options.endpoints.jsonRpc));
  }
  const evm = chain.vmType === 'evm' ? createEvmClient(transports[2]!) : undefined;
  const preparer = createChunkPreparer({
    comet,
    rest,
    evm,
    decoder: createIngestDecoder({ prefix: options.accountPrefix }),
    accountPrefix: options.accountPrefix,
  });
  return {
    chain,
    clients: { comet, rest, evm },
    async prepare(heights) {
      const blocks = await preparer.prepare(heights);
      const served = blocks.filter((b): b is PreparedBlock => b !== undefined);
      const missing = heights.find((h, i) => served[i]?.block.height !== h);
      if (missing !== undefined)
        throw new InputError('height_not_served', `the node does not serve height ${missing} (yet)`);
      return served;
    },
    async requests() {
      const values = (await metrics.requests.get()).values;
      return values.reduce((sum, v) => sum + v.value, 0);
    },
    close: () => Promise.all([preparer.close(), closeAll()]).then(() => undefined),
  };
}
