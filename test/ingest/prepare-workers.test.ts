import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkFailedAt } from '../../src/ingest/fetch/window.js';
import { createChunkPreparer, type ChunkPreparer } from '../../src/ingest/prepare/chunk.js';
import type { PrepareWorkerConfig } from '../../src/ingest/prepare/worker-messages.js';
import { createPrepareWorkers } from '../../src/ingest/prepare/worker-pool.js';
import { createIngestDecoder } from '../../src/ingest/decode/ingest-decoder.js';
import { createCometClient } from '../../src/node/cometbft.js';
import { createNodeMetrics, nodeRequestCounts } from '../../src/node/metrics.js';
import { createRestClient } from '../../src/node/rest.js';
import { createTransport } from '../../src/node/transport.js';
import { AppError } from '../../src/shared/errors.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator } from '../../src/sim/types.js';

/**
 * The prepare workers against the in-thread preparer on the same node: the same rows for every
 * chunk (whichever worker prepared it), the same errors (class, code, message, retryability, the
 * failing height), node metrics counted in the main registry, and no thread left after close.
 * The node is the simulator behind a proxy that can corrupt a height's tx or answer 503. One pool
 * of two workers serves the rows, the errors and the close (each thread loads `src/` through tsx:
 * about a second of CPU); a pool whose thread dies at start-up has one of its own.
 */
const HEAD = 40;
/** Height whose first tx the proxy corrupts while `corrupt` is on. */
const BAD_HEIGHT = 13;

let sim: Simulator;
let proxy: http.Server;
let rpcUrl: string;
let restUrl: string;
const mode = { corrupt: false, unavailable: false };

beforeAll(async () => {
  sim = createSimulator({
    vm: 'move',
    head: HEAD,
    rpcPort: 0,
    restPort: 0,
    jsonRpcPort: 0,
    fastSignatures: true,
  });
  const urls = await sim.listen();
  restUrl = urls.rest;
  proxy = http.createServer((req, res) => void forward(urls.rpc, req, res));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  rpcUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await sim.close();
});

async function forward(target: string, req: http.IncomingMessage, res: http.ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (mode.unavailable) return res.writeHead(503, { 'content-type': 'text/plain' }).end('busy\n');
  const answer = await fetch(target + (req.url ?? '/'), {
    method: req.method ?? 'POST',
    headers: { 'content-type': 'application/json' },
    ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
  });
  let text = await answer.text();
  if (mode.corrupt) text = corruptBlock(text);
  res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
}

/** The batch answer with BAD_HEIGHT's first tx replaced by bytes that are no protobuf Tx. */
function corruptBlock(text: string): string {
  const replies = JSON.parse(text) as unknown;
  if (!Array.isArray(replies)) return text;
  for (const r of replies as {
    result?: { block?: { header: { height: string }; data: { txs: string[] } } };
  }[]) {
    const block = r.result?.block;
    if (block && Number(block.header.height) === BAD_HEIGHT)
      block.data.txs[0] = Buffer.from([0xff, 0xff, 0x01]).toString('base64');
  }
  return JSON.stringify(replies);
}

function workerConfig(overrides: Partial<PrepareWorkerConfig> = {}): PrepareWorkerConfig {
  return {
    vm: 'move',
    chainId: 'minimove-1',
    endpoints: { rpc: [rpcUrl], rest: [restUrl], jsonRpc: [] },
    maxConcurrentRequests: 4,
    requestTimeoutMs: 5_000,
    accountPrefix: 'init',
    nft: { lookupAttempts: 2, retry: undefined },
    balanceChanges: false,
    logLevel: 'silent',
    ...overrides,
  };
}

function inThread(registry = createMetricsRegistry({ defaultMetrics: false })) {
  const metrics = createNodeMetrics(registry);
  const transport = (name: string, url: string) =>
    createTransport({ name, endpoints: [url], timeoutMs: 5_000, maxConcurrent: 4, metrics });
  const rest = createRestClient(transport('rest', restUrl));
  return {
    metrics,
    preparer: createChunkPreparer({
      comet: createCometClient(transport('rpc', rpcUrl)),
      rest,
      evm: undefined,
      decoder: createIngestDecoder({ prefix: 'init' }),
      accountPrefix: 'init',
    }),
  };
}

function workers(count: number, config = workerConfig({ nft: undefined })) {
  const metrics = createNodeMetrics(createMetricsRegistry({ defaultMetrics: false }));
  return {
    metrics,
    preparer: createPrepareWorkers({ count, config, logger: silentLogger(), nodeMetrics: metrics }),
  };
}

const chunksOf = (from: number, to: number, size: number) =>
  Array.from({ length: Math.ceil((to - from + 1) / size) }, (_, c) =>
    Array.from({ length: Math.min(size, to - from + 1 - c * size) }, (_, i) => from + c * size + i),
  );

/**
 * Rows as they arrive over a structured clone (Buffers become Uint8Arrays), without the proposer
 * moniker: each thread learns it once, so it rides on a different block per worker (the writer
 * upserts it).
 */
const comparable = (items: unknown[]) =>
  structuredClone(items).map((b) => {
    if (b === undefined) return b;
    const { validator: _learnt, ...rest } = b as Record<string, unknown>;
    return rest;
  });

async function failureOf(preparer: ChunkPreparer, heights: number[]) {
  const err = await preparer.prepare(heights).then(
    () => undefined,
    (e: unknown) => e,
  );
  const reason = err instanceof ChunkFailedAt ? (err.reason as AppError) : (err as AppError);
  return {
    chunkFailedAt: err instanceof ChunkFailedAt ? err.height : undefined,
    before: err instanceof ChunkFailedAt ? err.itemsBefore.length : undefined,
    isAppError: reason instanceof AppError,
    code: reason.code,
    message: reason.message,
    retryable: reason.retryable,
  };
}

/** Threads of this process (the main thread, libuv's and V8's, and any prepare workers). */
const threads = () => readdirSync('/proc/self/task').length;

describe('prepare workers', () => {
  /** Threads of this process before the shared pool started. */
  let threadsBefore: number;
  let shared: ReturnType<typeof workers>;
  beforeAll(() => {
    threadsBefore = threads();
    shared = workers(2);
  });
  afterAll(() => shared.preparer.close());

  it(
    'give each chunk the rows the in-thread path gives it, whichever of two workers prepared it',
    { timeout: 120_000 },
    async () => {
      const reference = inThread();
      const chunks = chunksOf(1, HEAD + 3, 4);
      // All chunks at once: both workers busy, answers arriving in any order.
      const [expected, got] = await Promise.all([
        Promise.all(chunks.map((c) => reference.preparer.prepare(c))),
        Promise.all(chunks.map((c) => shared.preparer.prepare(c))),
      ]);
      expect(got.flat().filter(Boolean).length).toBe(HEAD);
      expect(got.map(comparable)).toEqual(expected.map(comparable));
      // The node's requests made in the workers are counted in the main thread's registry.
      const counts = await nodeRequestCounts(shared.metrics);
      const refCounts = await nodeRequestCounts(reference.metrics);
      expect(counts.calls['rpc/block']).toBe(refCounts.calls['rpc/block']);
      expect(counts.requests['rpc/block']).toBe(chunks.length);
    },
  );

  it(
    'fail a chunk as the in-thread path does: a bad tx fatally at its height, a 503 retryably',
    { timeout: 120_000 },
    async () => {
      const reference = inThread();
      try {
        mode.corrupt = true;
        const fatal = [
          await failureOf(reference.preparer, [11, 12, 13, 14]),
          await failureOf(shared.preparer, [11, 12, 13, 14]),
        ];
        mode.corrupt = false;
        expect(fatal[0]).toMatchObject({
          chunkFailedAt: BAD_HEIGHT,
          before: 2,
          code: 'malformed_tx',
          retryable: false,
        });
        expect(fatal[1]).toEqual(fatal[0]);
        mode.unavailable = true;
        const transient = [
          await failureOf(reference.preparer, [1, 2]),
          await failureOf(shared.preparer, [1, 2]),
        ];
        mode.unavailable = false;
        expect(transient[0]).toMatchObject({
          chunkFailedAt: undefined,
          code: 'node_http_error',
          retryable: true,
        });
        expect(transient[1]).toEqual(transient[0]);
      } finally {
        mode.corrupt = mode.unavailable = false;
      }
    },
  );

  it('leave no thread behind once closed', { timeout: 120_000 }, async () => {
    // The failures above left the workers serving: they still prepare, on threads of their own.
    await Promise.all(chunksOf(1, 8, 4).map((c) => shared.preparer.prepare(c)));
    expect(threads()).toBeGreaterThan(threadsBefore);
    await shared.preparer.close();
    expect(threads()).toBe(threadsBefore);
  });

  it('fail every chunk, fatally, once a worker thread dies', { timeout: 120_000 }, async () => {
    // No RPC endpoint: the worker throws while starting, as a thread that crashes does.
    const pool = workers(1, workerConfig({ endpoints: { rpc: [], rest: [restUrl], jsonRpc: [] } }));
    try {
      for (let i = 0; i < 2; i++) {
        await expect(pool.preparer.prepare([1, 2])).rejects.toMatchObject({
          code: 'prepare_worker_failed',
          retryable: false,
          message: expect.stringMatching(/no rpc endpoint configured/),
        });
      }
    } finally {
      await pool.preparer.close();
    }
  });
});
