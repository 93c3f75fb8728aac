/**
 * A bulk-build worker thread (bench/scale/bulk-prepare.ts starts it): the scale chain's simulator
 * in this thread, read through its own surfaces' handlers without a socket (`Simulator.answer`),
 * and the ingest's own chunk preparer (src/ingest/prepare: the comet and REST clients' parsing,
 * the decoder, the NFT collector) over it. The preparer packs each tx's text as the writer stores
 * it (`TxRow.packed`), so the writing thread only shapes rows and COPYs them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createCometClient } from '../../src/node/cometbft.js';
import { createRestClient } from '../../src/node/rest.js';
import type { Transport, TransportRequest } from '../../src/node/transport.js';
import { createIngestNftCollector } from '../../src/ingest/collect/nft-collector.js';
import { createIngestDecoder } from '../../src/ingest/decode/ingest-decoder.js';
import { createChunkPreparer } from '../../src/ingest/prepare/chunk.js';
import { silentLogger } from '../../src/shared/logger.js';
import { loadSimOptions } from '../../src/sim/options.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator } from '../../src/sim/types.js';
import { threadCpuSeconds } from './thread-cpu.js';
import type { BulkWorkerData, BulkWorkerReply, BulkWorkerRequest, PreparedBlock } from './bulk-prepare.js';

const port = parentPort!;
const data = workerData as BulkWorkerData;

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

const sim = createSimulator(loadSimOptions(data.simFlags));
const rest = createRestClient(simTransport(sim, 'rest'));
const stop = new AbortController();
const preparer = createChunkPreparer({
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
    signal: stop.signal,
  }),
});
/** The prepared block without its txs' plain texts: the packed bytes (`packed`) are what is stored. */
function withoutTexts(
  block: Awaited<ReturnType<typeof preparer.prepare>>[number],
): PreparedBlock | undefined {
  if (block === undefined) return undefined;
  return { ...block, txs: block.txs.map((t) => ({ ...t, data: '' })) };
}

port.on('message', (req: BulkWorkerRequest) => {
  preparer.prepare(req.heights).then(
    (items) => {
      const blocks = items.map(withoutTexts);
      const reply: BulkWorkerReply = { id: req.id, blocks, cpuSeconds: threadCpuSeconds() };
      port.postMessage(reply);
    },
    (err: unknown) => {
      const reply: BulkWorkerReply = {
        id: req.id,
        cpuSeconds: threadCpuSeconds(),
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      };
      port.postMessage(reply);
    },
  );
});
port.postMessage({ ready: true, cpuSeconds: threadCpuSeconds() });
