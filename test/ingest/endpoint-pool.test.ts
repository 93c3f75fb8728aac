import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { createIngestService, type IngestService } from '../../src/ingest/service.js';
import type { NodeEndpointView } from '../../src/shared/node-endpoint.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { createMetricsRegistry, type Registry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorOptions, SimulatorUrls } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { expectIngestMatchesTruth } from '../helpers/truth.js';

/**
 * docs/node-data.md §5: a pool of nodes of one chain with different ranges (an archive, a pruned
 * node, a lagging one) and a node of another chain. The simulators' own logs say which heights
 * each node was asked; the archive's truth is the oracle of the index.
 */
const HEAD = 60;
const PRUNED_LOWEST = 41;
// Small chunks, so the heights both the archive and the pruned node hold come in batches of their own.
const TUNING = { chunkSize: 5, maxChunksInFlight: 2 };

async function startNode(
  options: Partial<SimulatorOptions> = {},
): Promise<{ sim: Simulator; urls: SimulatorUrls }> {
  const sim = createSimulator({
    vm: 'move',
    head: HEAD,
    fastSignatures: true,
    rpcPort: 0,
    restPort: 0,
    ...options,
  });
  return { sim, urls: await sim.listen() };
}

function openService(
  db: Db,
  nodes: SimulatorUrls[],
  logger: Logger = silentLogger(),
  registry: Registry = createMetricsRegistry({ defaultMetrics: false }),
): Promise<IngestService> {
  return createIngestService({
    options: {
      chainId: undefined,
      vmType: 'move',
      endpoints: { rpc: nodes.map((n) => n.rpc), rest: nodes.map((n) => n.rest), jsonRpc: [] },
      maxConcurrentRequests: 4,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
    },
    logger,
    db,
    registry,
  });
}

const rpcView = (service: IngestService, url: string): NodeEndpointView =>
  service.endpoints().find((ep) => ep.surface === 'rpc' && ep.url === url)!;

/** `/status/endpoints` (docs/api.md §4.3) and `/metrics` show each endpoint as the pool knows it. */
async function expectServedEndpoints(db: Db, service: IngestService, registry: Registry): Promise<void> {
  const app = await createApiApp({
    options: loadApiOptions({ CHAIN_ID: 'minimove-1', VM_TYPE: 'move', API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: registry,
    nodeEndpoints: () => service.endpointReport(),
  });
  try {
    const res = await app.inject({ url: '/status/endpoints' });
    expect(res.statusCode).toBe(200);
    // Prepare runs in this thread here: no worker pools.
    expect(res.json()).toEqual({ endpoints: service.endpoints(), prepare_workers: [] });
    expect(service.endpoints().map((ep) => ep.surface)).toEqual([
      ...Array(4).fill('rpc'),
      ...Array(4).fill('rest'),
    ]);
    const metrics = (await app.inject({ url: '/metrics' })).body;
    const pruned = service
      .endpoints()
      .find((ep) => ep.surface === 'rpc' && ep.lowest_height === PRUNED_LOWEST)!;
    expect(metrics).toContain(
      `rollup_indexer_node_endpoint_height{surface="rpc",endpoint="${pruned.url}",bound="lowest"} ${PRUNED_LOWEST}`,
    );
    expect(metrics).toMatch(
      /rollup_indexer_node_endpoint_up\{[^}]*health="wrong_chain",chain_id="other-1"\} 0/,
    );
  } finally {
    await app.close();
  }
}

/** A logger whose lines a test can wait for. */
function watchedLogger(): { logger: Logger; waitFor(re: RegExp): Promise<string> } {
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (line: string) => void }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = chunk.toString();
      lines.push(line);
      for (const w of waiters.filter((w) => w.re.test(line))) w.resolve(line);
      done();
    },
  });
  return {
    logger: pino({ level: 'warn' }, stream),
    waitFor: (re) =>
      new Promise((resolve) => {
        const seen = lines.find((l) => re.test(l));
        if (seen) resolve(seen);
        else waiters.push({ re, resolve });
      }),
  };
}

describe.each(testDbFactories().slice(0, 1))('endpoint pool on $name', (factory) => {
  // Four simulators and an ingest in one process: past the default timeout on a loaded host.
  it('takes history from the archive only, the head from the freshest, and never uses another chain', async () => {
    const { db, dispose } = await factory.create();
    const other = await startNode({ chainId: 'other-1' });
    const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
    const lagging = await startNode({ lagBlocks: 10 });
    const archive = await startNode();
    // The wrong chain comes first: with no CHAIN_ID, the chain most endpoints serve decides.
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const nodes = [other.urls, pruned.urls, lagging.urls, archive.urls];
    const service = await openService(db, nodes, silentLogger(), registry);
    try {
      await service.run({ signal: new AbortController().signal, untilHeight: HEAD, tuning: TUNING });
      await expectIngestMatchesTruth(db, archive.sim, HEAD);

      // RPC's /status says the pruned node's lowest height: it is never asked below it. REST does
      // not say: a few refusals teach the pool (endpoint-pool-surfaces.test.ts).
      expect(pruned.sim.faultLog().refused.rpc).toBe(0);
      expect(pruned.sim.faultLog().refused.rest).toBeLessThan(PRUNED_LOWEST);
      expect(rpcView(service, pruned.urls.rpc)).toMatchObject({
        health: 'healthy',
        lowest_height: PRUNED_LOWEST,
      });
      expect(rpcView(service, pruned.urls.rpc).requests).toBeGreaterThan(0);
      expect(rpcView(service, lagging.urls.rpc)).toMatchObject({ highest_height: HEAD - 10, lag_blocks: 10 });
      expect(rpcView(service, other.urls.rpc)).toMatchObject({
        health: 'wrong_chain',
        chain_id: 'other-1',
        requests: 0,
      });
      expect(rpcView(service, other.urls.rpc).error).toMatch(/serves chain other-1, expected minimove-1/);
      expect(
        service.endpoints().find((ep) => ep.surface === 'rest' && ep.url === other.urls.rest),
      ).toMatchObject({
        health: 'wrong_chain',
        requests: 0,
      });
      await expectServedEndpoints(db, service, registry);
    } finally {
      await service.close();
      await Promise.all([other, pruned, lagging, archive].map((n) => n.sim.close()));
      await dispose();
    }
  }, 180_000);

  it('waits, naming the heights and the archive, while the archive is away mid-backfill; resumes when it returns', async () => {
    const { db, dispose } = await factory.create();
    const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
    let archive = await startNode();
    const ports = {
      rpcPort: Number(new URL(archive.urls.rpc).port),
      restPort: Number(new URL(archive.urls.rest).port),
    };
    const watched = watchedLogger();
    const service = await openService(db, [pruned.urls, archive.urls], watched.logger);
    const stop = new AbortController();
    let archiveClosed: Promise<void> | undefined;
    try {
      const run = service.run({
        signal: stop.signal,
        untilHeight: HEAD,
        tuning: TUNING,
        onCommit: (p) => {
          if (p.height >= 10) archiveClosed ??= archive.sim.close();
        },
      });
      // The block stream's wait (the RPC surface): an NFT look-up may wait on the REST surface first.
      const line = await watched.waitFor(/\brpc: no reachable endpoint serves height/);
      expect(line).toContain(archive.urls.rpc);
      expect(line).toMatch(/heights? \d+/);
      expect(service.height()).toBeLessThan(PRUNED_LOWEST);
      await archiveClosed;
      archive = await startNode(ports);
      await run;
      await expectIngestMatchesTruth(db, archive.sim, HEAD);
      expect(pruned.sim.faultLog().refused.rpc).toBe(0);
    } finally {
      stop.abort();
      await service.close();
      await Promise.all([pruned, archive].map((n) => n.sim.close()));
      await dispose();
    }
  });

  it('stops with an error naming the height, each range and what to do when no endpoint holds it', async () => {
    const { db, dispose } = await factory.create();
    const pruned = await startNode({ lowestHeight: PRUNED_LOWEST });
    const synced = await startNode({ lowestHeight: 30 });
    // The database already holds blocks 1–20 (from an archive that is gone): height 21 is needed next.
    const archive = await startNode();
    const first = await openService(db, [archive.urls]);
    await first.run({ signal: new AbortController().signal, untilHeight: 20, tuning: TUNING });
    await first.close();
    await archive.sim.close();
    const service = await openService(db, [pruned.urls, synced.urls]);
    try {
      const error = await service
        .run({ signal: new AbortController().signal, untilHeight: HEAD })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'height_not_held', retryable: false });
      const message = (error as Error).message;
      expect(message).toMatch(/height 21\b|heights 21–/);
      expect(message).toContain(`${pruned.urls.rpc} holds ${PRUNED_LOWEST}–${HEAD}`);
      expect(message).toContain(`${synced.urls.rpc} holds 30–${HEAD}`);
      expect(message).toMatch(/add an archive endpoint/);
    } finally {
      await service.close();
      await Promise.all([pruned, synced].map((n) => n.sim.close()));
      await dispose();
    }
  });
});
