/**
 * The bulk builder's block source (bench/scale/bulk.ts): the scale chain's simulator in the calling
 * thread, read through its own surfaces' handlers without a socket (`Simulator.answer`), and the
 * ingest's own chunk preparer (src/ingest/prepare: the comet and REST clients' parsing, the decoder,
 * the NFT collector) over it. Used by each worker thread (bulk-worker.ts) and by bulk-profile.ts.
 */
import { createCometClient } from '../../src/node/cometbft.js';
import { createRestClient } from '../../src/node/rest.js';
import type { Transport, TransportRequest } from '../../src/node/transport.js';
import { createIngestNftCollector } from '../../src/ingest/collect/nft-collector.js';
import { createIngestDecoder } from '../../src/ingest/decode/ingest-decoder.js';
import { createChunkPreparer, type ChunkPreparer } from '../../src/ingest/prepare/chunk.js';
import { silentLogger } from '../../src/shared/logger.js';
import { loadSimOptions } from '../../src/sim/options.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator } from '../../src/sim/types.js';
import type { BulkWorkerData } from './bulk-prepare.js';

/** A transport answered by the simulator's handler of one surface, in this thread. */
function simTransport(sim: Simulator, surface: 'rpc' | 'rest'): Transport {
  return {
    async request(req: TransportRequest) {
      const url = new URL(req.path, 'http://sim');
      const out = await sim.answer(surface, {
        method: req.method,
        path: url.pathname,
        query: url.searchParams,
        headers: { 'content-type': 'application/json', ...req.headers },
        body: req.body === undefined ? undefined : JSON.parse(req.body),
      });
      const text = typeof out.body === 'string' ? out.body : out.body.toString('utf8');
      return { status: out.status, text, endpoint: `sim-${surface}` };
    },
    close: () => Promise.resolve(),
  };
}

/** The chunk preparer over an in-thread simulator of the chain `data` describes. */
export function createSimPreparer(data: BulkWorkerData): ChunkPreparer {
  const sim = createSimulator(loadSimOptions(data.simFlags));
  const rest = createRestClient(simTransport(sim, 'rest'));
  return createChunkPreparer({
    chainId: data.chainId,
    comet: createCometClient(simTransport(sim, 'rpc')),
    rest,
    evm: undefined,
    decoder: createIngestDecoder({ prefix: data.accountPrefix }),
    accountPrefix: data.accountPrefix,
    nft: createIngestNftCollector({
      vm: data.vm,
      prefix: data.accountPrefix,
      rest,
      logger: silentLogger(),
      signal: new AbortController().signal,
    }),
  });
}
