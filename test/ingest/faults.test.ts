import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createIngestService } from '../../src/ingest/service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { FaultLog, VmType } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth } from '../helpers/truth-rich-list.js';

/**
 * No `shortpage`: ingest asks REST for a block's tx page only for a message type its registry does
 * not know, and the generated chains hold none, so the simulator's fault log counted no short page
 * in any of these runs (the profile had carried shortpage=0.3 with nothing to show for it).
 */
const PROFILE = '5xx=0.08,429=0.05,timeout=0.02,reset=0.03,latency=3,lag=2';

/**
 * Every fault of PROFILE reached the indexer, by the simulator's own count: a profile (or an
 * injector) that serves none would leave the recovery paths untested while the run still passes.
 */
function expectEveryFaultServed(log: FaultLog, vm: VmType): void {
  const surfaces = ['rpc', 'rest', 'jsonrpc'] as const;
  for (const kind of ['reset', 'timeout', '429', '5xx'] as const) {
    expect(
      surfaces.reduce((n, s) => n + log[s][kind], 0),
      kind,
    ).toBeGreaterThan(0);
  }
  // Which surface a fault lands on depends on the order of concurrent requests; the EVM JSON-RPC
  // surface (receipts, traces) carries enough of them to be faulted in every run.
  if (vm === 'evm') {
    const jsonRpc = log.jsonrpc;
    expect(jsonRpc.reset + jsonRpc.timeout + jsonRpc['429'] + jsonRpc['5xx'], 'jsonrpc').toBeGreaterThan(0);
  }
  expect(log.laggedResults, 'lagging block_results').toBeGreaterThan(0);
  expect(log.delayed, 'delayed answers').toBeGreaterThan(0);
}

/**
 * Faults are the node's, met by the node clients of each VM, and a store only ever sees the batches
 * that got through: with both stores in the run each VM runs once, PGlite taking Move and
 * PostgreSQL Wasm and EVM (heavySuiteVms).
 */
describe.each(testDbFactories())('ingest against a faulty node on $name', (factory) => {
  it.each(heavySuiteVms(factory.name))(
    '%s: completes with exactly the ground truth (NFT look-ups, EVM traces and balance look-ups included) through 5xx, 429, timeouts, resets and lagging block_results, each served',
    { timeout: 240_000 },
    async (vm) => {
      const { db, dispose } = await factory.create();
      const head = 80;
      const indexed = await indexSimulator({
        db,
        vm,
        head,
        txsPerBlock: '0-6',
        sim: {
          faults: PROFILE,
          fastSignatures: true,
        },
        // block_results lags /block by 2: the top two heights of a fixed head never complete.
        untilHeight: head - 2,
      });
      try {
        expectEveryFaultServed(indexed.sim.faultLog(), vm);
        await expectIngestMatchesTruth(db, indexed.sim, head - 2);
        await expectNftMatchesTruth(db, indexed.sim, head - 2);
        expect(await expectNftTxEdgesMatchEvents(db, vm)).toBeGreaterThan(0);
        // Traces go through the same faulty JSON-RPC surface.
        if (vm === 'evm') await expectInternalTxsMatchTruth(db, indexed.sim, head - 2);
        await expectRichListMatchesTruth(db, indexed.sim, head - 2);
      } finally {
        await indexed.close();
        await dispose();
      }
    },
  );

  it.each(heavySuiteVms(factory.name))(
    '%s: starts at the lowest available height of a pruned node (block_time 0 first, balances from a snapshot there)',
    async (vm) => {
      const { db, dispose } = await factory.create();
      const indexed = await indexSimulator({
        db,
        vm,
        head: 40,
        sim: { faults: 'pruned=25', fastSignatures: true },
      });
      try {
        const { rows } = await db.query<{ height: number; block_time_ms: number }>(
          'SELECT height, block_time_ms FROM block ORDER BY height',
        );
        expect(rows.map((r) => r.height)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
        expect(rows[0]?.block_time_ms).toBe(0);
        expect(rows[1]?.block_time_ms).toBeGreaterThan(0);
        const txs = await db.query<{ min: number; heights: number }>(
          'SELECT min(sequence) AS min, min(height) AS heights FROM tx',
        );
        expect(txs.rows[0]).toEqual({ min: 1, heights: expect.any(Number) });
        expect(txs.rows[0]!.heights).toBeGreaterThanOrEqual(25);
        // Every holder, also those the chain never touched after height 25, with the node's balance.
        await expectRichListMatchesTruth(db, indexed.sim, 40);
      } finally {
        await indexed.close();
        await dispose();
      }
    },
  );
});

// Waiting for the node is the node client's: one store (PostgreSQL when set).
describe.each(testDbFactories().slice(-1))('ingest start-up on $name', (factory) => {
  it('waits for a node that is not up yet instead of exiting', async () => {
    const { db, dispose } = await factory.create();
    const [rpcPort, restPort] = await Promise.all([freePort(), freePort()]);
    const sim = createSimulator({ vm: 'move', head: 15, rpcPort, restPort, fastSignatures: true });
    let nodeRefused!: () => void;
    const refused = new Promise<void>((resolve) => (nodeRefused = resolve));
    const service = createIngestService({
      options: {
        chainId: undefined,
        vmType: 'move',
        endpoints: {
          rpc: [`http://127.0.0.1:${rpcPort}`],
          rest: [`http://127.0.0.1:${restPort}`],
          jsonRpc: [],
        },
        maxConcurrentRequests: 4,
        accountPrefix: 'init',
        startHeight: undefined,
        requestTimeoutMs: 2_000,
      },
      logger: silentLogger(),
      db,
      registry: createMetricsRegistry({ defaultMetrics: false }),
      onNodeRetry: () => nodeRefused(),
    });
    // The node comes up only after the service has found it down (and kept waiting).
    await refused;
    await sim.listen();
    try {
      const ready = await service;
      await ready.run({ signal: new AbortController().signal, untilHeight: 15 });
      await ready.close();
      await expectIngestMatchesTruth(db, sim, 15);
    } finally {
      await sim.close();
      await dispose();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

describe('the simulator fault log', () => {
  it('counts each fault it serves, by surface, and none on its own /sim/ routes', async () => {
    const sim = createSimulator({ vm: 'move', head: 5, rpcPort: 0, restPort: 0, faults: '5xx=1,lag=2' });
    const urls = await sim.listen();
    try {
      const statuses = await Promise.all(
        [
          `${urls.rpc}/status`,
          `${urls.rpc}/block?height=1`,
          `${urls.rest}/cosmos/base/tendermint/v1beta1/blocks/1`,
        ].map((url) => fetch(url).then((r) => r.status)),
      );
      expect(statuses).toEqual([503, 503, 503]);
      const log = sim.faultLog();
      expect(log.rpc).toEqual({ reset: 0, timeout: 0, '429': 0, '5xx': 2 });
      expect(log.rest).toEqual({ reset: 0, timeout: 0, '429': 0, '5xx': 1 });
      expect(log.laggedResults).toBe(0);
      expect((await fetch(`${urls.rest}/sim/v1/truth/block/1`)).status).toBe(200);
      expect(sim.faultLog().rest['5xx']).toBe(1);
    } finally {
      await sim.close();
    }
  });
});
