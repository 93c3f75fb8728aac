/**
 * What moving a chunk's prepared blocks across threads costs against preparing them: per chunk of
 * 20 heights (the pipeline's chunk size), the time of prepareBlock (decode, accounts, JSON render,
 * rows) vs a structured clone of the PreparedBlock[] (what postMessage does: serialise on one side,
 * deserialise on the other). Fetch time is excluded from both.
 *
 *   npx tsx bench/ingest/prepare-clone.ts [--vm move] [--txs 3] [--chunks 100]
 */
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { createCometClient } from '../../src/node/cometbft.js';
import { createRestClient } from '../../src/node/rest.js';
import { createTransport } from '../../src/node/transport.js';
import { createAccountBytesMemo, prepareBlock, type PreparedBlock } from '../../src/ingest/prepare/block.js';
import { createIngestDecoder } from '../../src/ingest/decode/ingest-decoder.js';
import { startBenchChain } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'move' },
    txs: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '100' },
  },
});
const chunks = Number(values.chunks);
const chunkSize = 20;
const sim = await startBenchChain(values.vm, chunks * chunkSize + 1, values.txs);
const transport = (url: string) =>
  createTransport({ name: 'b', endpoints: [url], timeoutMs: 30_000, maxConcurrent: 4 });
const comet = createCometClient(transport(sim.rpc));
const rest = createRestClient(transport(sim.rest));
const ctx = {
  decoder: createIngestDecoder({ prefix: 'init' }),
  rest,
  accountPrefix: 'init',
  monikers: new Map<string, string | undefined>(),
  accountBytes: createAccountBytesMemo('init'),
};
let prepareMs = 0;
let cloneMs = 0;
let bytes = 0;
let serialiseMs = 0;
let deserialiseMs = 0;
let wireBytes = 0;
for (let c = 0; c < chunks; c++) {
  const heights = Array.from({ length: chunkSize }, (_, i) => c * chunkSize + i + 1);
  const raws = await comet.fetchBlocks(heights);
  const t0 = performance.now();
  const prepared: PreparedBlock[] = [];
  for (const raw of raws) prepared.push(await prepareBlock(raw!, undefined, ctx));
  const t1 = performance.now();
  structuredClone(prepared);
  const t2 = performance.now();
  // The two halves apart: the worker pays serialise, the main thread deserialise.
  const wire = serialize(prepared);
  const t3 = performance.now();
  deserialize(wire);
  const t4 = performance.now();
  prepareMs += t1 - t0;
  cloneMs += t2 - t1;
  serialiseMs += t3 - t2;
  deserialiseMs += t4 - t3;
  wireBytes += wire.length;
  for (const b of prepared) for (const t of b.txs) bytes += t.data.length;
}
await sim.stop();
console.log(
  JSON.stringify({
    vm: values.vm,
    txsPerBlock: Number(values.txs),
    chunks,
    chunkSize,
    prepareMsPerChunk: +(prepareMs / chunks).toFixed(3),
    cloneMsPerChunk: +(cloneMs / chunks).toFixed(3),
    cloneShareOfPrepare: +(cloneMs / prepareMs).toFixed(3),
    serialiseMsPerChunk: +(serialiseMs / chunks).toFixed(3),
    deserialiseMsPerChunk: +(deserialiseMs / chunks).toFixed(3),
    wireBytesPerChunk: Math.round(wireBytes / chunks),
    txJsonBytesPerChunk: Math.round(bytes / chunks),
  }),
);
process.exit(0);
