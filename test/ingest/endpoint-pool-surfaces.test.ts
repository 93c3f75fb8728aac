import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { createIngestService, type IngestService } from '../../src/ingest/service.js';
import type { NodeEndpointReport, NodeEndpointView } from '../../src/shared/node-endpoint.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry, type Registry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorOptions, SimulatorUrls } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';
import { expectEvmTxsMatchNode } from '../helpers/truth-evm.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

/**
 * docs/node-data.md §5.2 on REST and EVM JSON-RPC: neither says which heights it keeps, so the pool
 * learns it from a pruned node's refusals (the SDK's pruned-state error on REST; on JSON-RPC the
 * pruned-state error, and minievm's `[]` receipts for a block whose txs emitted EVM logs) and sends
 * those heights to the archive: a missed `[]` would drop the block's EVM txs from the truth. Every stage reads old
 * heights here (the block stream, NFT look-ups at a height, traces, `eth_call` balances), and the
 * simulators' truth is the oracle. One store (PostgreSQL when set): the pool is the node clients', and
 * the store only sees the batches it gets.
 */
const HEAD = 60;
const PRUNED_LOWEST = 41;
const TUNING = { chunkSize: 5, maxChunksInFlight: 2 };
// Several simulators, an EVM chain and every stage in one process: slow on a loaded host.
const SLOW = 180_000;

async function startNode(
  options: Partial<SimulatorOptions> = {},
): Promise<{ sim: Simulator; urls: SimulatorUrls }> {
  const sim = createSimulator({
    vm: 'evm',
    head: HEAD,
    txsPerBlock: '0-6',
    fastSignatures: true,
    rpcPort: 0,
    restPort: 0,
    jsonRpcPort: 0,
    ...options,
  });
  return { sim, urls: await sim.listen() };
}

function openService(
  db: Db,
  nodes: { rpc: string; rest: string; jsonRpc: string }[],
  extra: { prepareWorkers?: number; stages?: boolean; registry?: Registry } = {},
): Promise<IngestService> {
  return createIngestService({
    options: {
      chainId: undefined,
      vmType: 'evm',
      endpoints: {
        rpc: nodes.map((n) => n.rpc),
        rest: nodes.map((n) => n.rest),
        jsonRpc: nodes.map((n) => n.jsonRpc),
      },
      maxConcurrentRequests: 4,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
      internalTx: extra.stages ?? true,
      richList: extra.stages ?? true,
      prepareWorkers: extra.prepareWorkers ?? 0,
    },
    logger: silentLogger(),
    db,
    registry: extra.registry ?? createMetricsRegistry({ defaultMetrics: false }),
  });
}

const viewOf = (service: IngestService, surface: string, url: string): NodeEndpointView =>
  service.endpoints().find((ep) => ep.surface === surface && ep.url === url)!;

const urlsOf = (n: SimulatorUrls) => ({ rpc: n.rpc, rest: n.rest, jsonRpc: n.jsonRpc! });

/** A TCP endpoint that accepts connections and never answers (a node stuck or far away). */
async function silentEndpoint(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(testDbFactories().slice(-1))('REST and JSON-RPC pools on $name', (factory) => {
  it(
    'learns what a pruned node keeps from its refusals, takes old heights from the archive, never uses another chain',
    async () => {
      const { db, dispose } = await factory.create();
      const other = await startNode({ chainId: 'other-evm-1' });
      const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
      const archive = await startNode();
      const nodes = [other.urls, pruned.urls, archive.urls].map(urlsOf);
      const service = await openService(db, nodes);
      try {
        await service.run({ signal: new AbortController().signal, untilHeight: HEAD, tuning: TUNING });
        await expectIngestMatchesTruth(db, archive.sim, HEAD);
        expect(await expectEvmTxsMatchNode(db, archive.sim, HEAD)).toBeGreaterThan(0);
        expect(await expectInternalTxsMatchTruth(db, archive.sim, HEAD)).toBeGreaterThan(0);
        expect(await expectRichListMatchesTruth(db, archive.sim, HEAD)).toBeGreaterThan(0);

        const refused = pruned.sim.faultLog().refused;
        // RPC says its lowest height in /status: never asked below it.
        expect(refused.rpc).toBe(0);
        for (const [surface, url] of [
          ['rest', pruned.urls.rest],
          ['jsonrpc', pruned.urls.jsonRpc!],
        ] as const) {
          // Asked below its lowest, and learnt from it: fewer refusals (answers on REST, calls on
          // JSON-RPC) than old heights, though every old height is read there, several times on JSON-RPC.
          // On JSON-RPC minievm's `[]` receipts of a pruned block read as an empty block until the
          // block's txs show EVM logs; the receipts are then asked again, and that is the refusal
          // the pool learns from: each refused receipts call may be counted twice.
          expect(refused[surface], surface).toBeGreaterThan(0);
          expect(refused[surface], surface).toBeLessThan(
            surface === 'jsonrpc' ? 2 * PRUNED_LOWEST : PRUNED_LOWEST,
          );
          const view = viewOf(service, surface, url);
          expect(view, surface).toMatchObject({ health: 'healthy' });
          // What it refused is below what it keeps: the learnt lowest never passes the truth.
          expect(view.lowest_height, surface).toBeGreaterThan(1);
          expect(view.lowest_height!, surface).toBeLessThanOrEqual(PRUNED_LOWEST);
          expect(view.requests, surface).toBeGreaterThan(0);
        }
        for (const surface of ['rpc', 'rest', 'jsonrpc'] as const) {
          const url = surface === 'jsonrpc' ? other.urls.jsonRpc! : other.urls[surface];
          expect(viewOf(service, surface, url), surface).toMatchObject({
            health: 'wrong_chain',
            requests: 0,
          });
        }
        expect(other.sim.faultLog().refused).toEqual({ rpc: 0, rest: 0, jsonrpc: 0 });
      } finally {
        await service.close();
        await Promise.all([other, pruned, archive].map((n) => n.sim.close()));
        await dispose();
      }
    },
    SLOW,
  );

  it(
    'stops naming the heights when no REST or JSON-RPC endpoint keeps them',
    async () => {
      const { db, dispose } = await factory.create();
      // RPC keeps every block (an archive's RPC); REST and JSON-RPC only come from a pruned node.
      const archive = await startNode();
      const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
      const service = await openService(db, [
        { rpc: archive.urls.rpc, rest: pruned.urls.rest, jsonRpc: pruned.urls.jsonRpc! },
      ]);
      try {
        const error = await service
          .run({ signal: new AbortController().signal, untilHeight: HEAD, tuning: TUNING })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'height_not_held', retryable: false });
        expect((error as Error).message).toMatch(/^(rest|jsonrpc): heights? \d+/);
        expect((error as Error).message).toMatch(/add an archive endpoint/);
        expect(service.height()).toBeLessThan(PRUNED_LOWEST);
      } finally {
        await service.close();
        await Promise.all([archive, pruned].map((n) => n.sim.close()));
        await dispose();
      }
    },
    SLOW,
  );

  it(
    'starts without waiting on an endpoint that does not answer its probe',
    async () => {
      const { db, dispose } = await factory.create();
      const archive = await startNode();
      const silent = await silentEndpoint();
      const service = await openService(db, [
        urlsOf(archive.urls),
        { rpc: silent.url, rest: silent.url, jsonRpc: silent.url },
      ]);
      try {
        await service.run({ signal: new AbortController().signal, untilHeight: 20, tuning: TUNING });
        await expectIngestMatchesTruth(db, archive.sim, 20);
        for (const ep of service.endpoints().filter((e) => e.url === silent.url)) {
          expect(ep, ep.surface).toMatchObject({ health: 'unprobed', requests: 0 });
          expect(ep.error, ep.surface).toMatch(/no answer to its probe within \d+ ms/);
        }
      } finally {
        await service.close();
        await silent.close();
        await archive.sim.close();
        await dispose();
      }
    },
    SLOW,
  );
  it(
    "shows each prepare worker's own pools on /status/endpoints and /metrics while they run",
    async () => {
      const { db, dispose } = await factory.create();
      const other = await startNode({ chainId: 'other-evm-1' });
      const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
      const archive = await startNode();
      const nodes = [other.urls, pruned.urls, archive.urls].map(urlsOf);
      const registry = createMetricsRegistry({ defaultMetrics: false });
      const service = await openService(db, nodes, { prepareWorkers: 2, stages: false, registry });
      const otherUrls: string[] = Object.values(urlsOf(other.urls));
      let seen: NodeEndpointReport | undefined;
      let scraped: Promise<string[]> | undefined;
      try {
        await service.run({
          signal: new AbortController().signal,
          untilHeight: HEAD,
          tuning: TUNING,
          // The last commit comes before the workers stop.
          onCommit: (p) => {
            if (p.height !== HEAD) return;
            seen = service.endpointReport();
            // A scrape reads the pools as it starts (prom-client's collect), here beside `seen`.
            scraped = Promise.all(
              ['rollup_indexer_node_endpoint_up', 'rollup_indexer_node_endpoint_height'].map((name) =>
                registry.getSingleMetricAsString(name),
              ),
            );
          },
        });
        await expectIngestMatchesTruth(db, archive.sim, HEAD);
        expect(seen!.endpoints).toEqual(service.endpoints());
        expect(seen!.prepare_workers.map((w) => w.worker)).toEqual([1, 2]);
        for (const { worker, endpoints } of seen!.prepare_workers) {
          const where = `worker ${worker}`;
          expect(
            endpoints.map((ep) => ep.surface),
            where,
          ).toEqual(['rpc', 'rest', 'jsonrpc'].flatMap((s) => [s, s, s]));
          for (const ep of endpoints.filter((e) => otherUrls.includes(e.url)))
            expect(ep, where).toMatchObject({ health: 'wrong_chain', requests: 0 });
          const prunedRpc = endpoints.find((e) => e.surface === 'rpc' && e.url === pruned.urls.rpc)!;
          expect(prunedRpc, where).toMatchObject({ health: 'healthy', lowest_height: PRUNED_LOWEST });
        }
        // The workers fetch the blocks: their archive endpoints took requests.
        const archiveRpc = seen!.prepare_workers
          .flatMap((w) => w.endpoints)
          .filter((e) => e.url === archive.urls.rpc);
        expect(archiveRpc.reduce((n, e) => n + e.requests, 0)).toBeGreaterThan(0);
        // /metrics: the main thread's endpoints without a worker label, each worker's with one.
        const [up, heights] = await scraped!;
        const series = (ep: NodeEndpointView, worker?: number) =>
          `surface="${ep.surface}",endpoint="${ep.url}"${worker === undefined ? '' : `,worker="${worker}"`}`;
        const shown = [
          ...seen!.endpoints.map((ep) => ({ ep, labels: series(ep) })),
          ...seen!.prepare_workers.flatMap((w) =>
            w.endpoints.map((ep) => ({ ep, labels: series(ep, w.worker) })),
          ),
        ];
        expect(up!.split('\n').filter((l) => l.startsWith('rollup_indexer_node_endpoint_up{'))).toHaveLength(
          shown.length,
        );
        for (const { ep, labels } of shown) {
          const healthy = ep.health === 'healthy' ? 1 : 0;
          expect(up).toContain(
            `rollup_indexer_node_endpoint_up{${labels},health="${ep.health}",chain_id="${ep.chain_id ?? ''}"} ${healthy}`,
          );
          expect(heights).toContain(
            `rollup_indexer_node_endpoint_height{${labels},bound="lag"} ${ep.lag_blocks}`,
          );
          if (ep.lowest_height !== null)
            expect(heights).toContain(
              `rollup_indexer_node_endpoint_height{${labels},bound="lowest"} ${ep.lowest_height}`,
            );
        }
        // Once they stop, they are no longer shown.
        expect(service.endpointReport().prepare_workers).toEqual([]);
        expect(await registry.getSingleMetricAsString('rollup_indexer_node_endpoint_up')).not.toContain(
          'worker=',
        );

        const app = await createApiApp({
          options: loadApiOptions({ CHAIN_ID: 'minievm-1', VM_TYPE: 'evm', API_CACHE: 'false' }),
          db,
          logger: silentLogger(),
          metrics: createMetricsRegistry({ defaultMetrics: false }),
          nodeEndpoints: () => seen!,
        });
        try {
          const res = await app.inject({ url: '/status/endpoints' });
          expect(res.statusCode).toBe(200);
          expect(Object.keys(res.json() as object)).toEqual(['endpoints', 'prepare_workers']);
          expect(res.json()).toEqual(JSON.parse(JSON.stringify(seen)));
        } finally {
          await app.close();
        }
      } finally {
        await service.close();
        await Promise.all([other, pruned, archive].map((n) => n.sim.close()));
        await dispose();
      }
    },
    SLOW,
  );
});
