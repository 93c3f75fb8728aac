/**
 * A bulk-build worker thread (bench/scale/bulk-prepare.ts starts it): the scale chain's simulator
 * in this thread, read through its own surfaces' handlers without a socket (`Simulator.answer`),
 * and the ingest's own chunk preparer (src/ingest/prepare: the comet and REST clients' parsing,
 * the decoder, the NFT collector) over it. The preparer packs each tx's text as the writer stores
 * it (`TxRow.packed`), so the writing thread only shapes rows and COPYs them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSimPreparer } from './bulk-source.js';
import { threadCpuSeconds } from './thread-cpu.js';
import type { BulkWorkerData, BulkWorkerReply, BulkWorkerRequest, PreparedBlock } from './bulk-prepare.js';

const port = parentPort!;
const preparer = createSimPreparer(workerData as BulkWorkerData);
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
