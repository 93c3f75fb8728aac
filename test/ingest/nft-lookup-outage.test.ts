import { describe, expect, it, vi } from 'vitest';
import { createNftCollector } from '../../src/ingest/collect/nft-collector.js';
import { createIngestService } from '../../src/ingest/service.js';
import { createCometClient } from '../../src/node/cometbft.js';
import type { NftLookups } from '../../src/node/nft-lookups.js';
import { createTransport } from '../../src/node/transport.js';
import { createNodeWaits, type NodeWaits } from '../../src/shared/node-waits.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Db } from '../../src/store/driver/db.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { PREPARE_WORKERS } from '../helpers/ingest.js';
import { startLookupBlocker } from '../helpers/lookup-blocker.js';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';

/**
 * The node's NFT look-ups (Move resources, Wasm contract queries, minievm calls) fail at every
 * height from some height on, for far longer than a look-up's attempts (docs/ingest.md §10): ingest
 * must not stop. It commits nothing from the lowest height whose block needs a look-up on, and
 * shows the block stream waiting with an error naming that height and the object; once the node
 * answers again it reaches exactly the simulator's truth.
 *
 * The stop height is derived from the blocks, not from the order requests reach the node: cached
 * look-ups share one in-flight request between blocks, so the lowest block needing a look-up may
 * never send one of its own.
 */
const HEAD = 90;
/** The first run indexes this far with a healthy node, so the failing run starts with cold caches. */
const HEALTHY_UNTIL = 30;
/** Times the block stream retries the chunk that needs a look-up before the node heals. */
const CHUNK_RETRIES = 5;

/** How the failing node answers each VM's look-ups: three kinds of node trouble, none an answer about a contract. */
const TROUBLE = {
  move: { status: 503, body: 'Service Unavailable\n', type: 'text/plain' },
  wasm: {
    status: 500,
    body: '{"code":14,"message":"connection error: desc = transport is closing","details":[]}',
    type: 'application/json',
  },
  evm: { status: 429, body: 'Too Many Requests\n', type: 'text/plain' },
} as const;

/** vi.waitFor's own 1 s is a guess about machine load: conditions are given two minutes. */
const PATIENCE = { timeout: 120_000, interval: 20 };

/**
 * The look-ups and their failures are each VM's node client's; what a store sees is a batch that
 * never commits, the same SQL on either: with both stores in the run each VM runs once
 * (heavySuiteVms).
 */
describe.each(testDbFactories())('NFT look-ups that keep failing, on $name', (factory) => {
  it.each(heavySuiteVms(factory.name))(
    '%s: ingest waits at the first height whose look-up fails, naming it and the object; nothing of it is written; it reaches the truth once the node answers',
    { timeout: 300_000 },
    async (vm) => {
      const { db, dispose } = await factory.create();
      const sim = createSimulator({
        vm,
        head: HEAD,
        rpcPort: 0,
        restPort: 0,
        jsonRpcPort: 0,
        txsPerBlock: '0-6',
        nftShare: 0.8,
        fastSignatures: true,
      });
      const urls = await sim.listen();
      const node = await startLookupBlocker(urls.rest, TROUBLE[vm]);
      const endpoints = { rpc: [urls.rpc], rest: [node.url], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] };
      try {
        await runIngest(db, vm, endpoints, HEALTHY_UNTIL, createNodeWaits());
        expect(await checkpointHeight(db)).toBe(HEALTHY_UNTIL);

        const from = HEALTHY_UNTIL + 1;
        const expected = await firstLookupAtOrAbove(vm, urls.rpc, from, HEAD);
        expect(expected, `some block in ${from}..${HEAD} needs an NFT look-up`).toBeDefined();
        node.failFrom(from);
        const waits = createNodeWaits();
        let stopped = false;
        const running = runIngest(db, vm, endpoints, HEAD, waits).finally(() => (stopped = true));
        // The block stream has fetched the failing chunk again and again, each time after its
        // look-ups used their 2 attempts: the old budget that stopped ingest, many times over.
        await vi.waitFor(
          () => expect(waits.list()[0]?.attempts ?? 0).toBeGreaterThanOrEqual(CHUNK_RETRIES),
          PATIENCE,
        );
        expect(stopped, 'ingest keeps going through the outage').toBe(false);
        expect(Math.min(...node.failedHeights())).toBeGreaterThanOrEqual(from);
        const [wait] = waits.list();
        expect(wait).toMatchObject({ part: 'block stream', on: 'rest' });
        expect(wait!.lastError).toMatch(
          new RegExp(`^height ${expected!.height}: NFT look-up of .+ failed after 2 attempts`),
        );
        expect(expected!.objects.some((o) => wait!.lastError.includes(o))).toBe(true);
        // The chunk holding the height is fetched again whole, so heights of it below may wait too.
        const waitingAt = await checkpointHeight(db);
        expect(waitingAt).toBeGreaterThanOrEqual(HEALTHY_UNTIL);
        expect(waitingAt).toBeLessThan(expected!.height);
        await expectNothingAbove(db, waitingAt);

        node.heal();
        await running;
        expect(await checkpointHeight(db)).toBe(HEAD);
        expect(waits.list()).toEqual([]);
        await expectIngestMatchesTruth(db, sim, HEAD);
        await expectNftMatchesTruth(db, sim, HEAD);
        await expectNftTxEdgesMatchEvents(db, vm);
      } finally {
        await node.close();
        await sim.close();
        await dispose();
      }
    },
  );
});

/** One start of the indexer (a fresh process: caches empty), run until `untilHeight` or an error. */
async function runIngest(
  db: Db,
  vm: 'move' | 'wasm' | 'evm',
  endpoints: { rpc: string[]; rest: string[]; jsonRpc: string[] },
  untilHeight: number,
  waits: NodeWaits,
): Promise<void> {
  const service = await createIngestService({
    options: {
      chainId: undefined,
      vmType: vm,
      endpoints,
      maxConcurrentRequests: 8,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
      nftLookupAttempts: 2,
      nodeRetry: { baseMs: 5, capMs: 50 },
      prepareWorkers: PREPARE_WORKERS,
    },
    logger: silentLogger(),
    db,
    registry: createMetricsRegistry({ defaultMetrics: false }),
    waits,
  });
  try {
    await service.run({ signal: new AbortController().signal, untilHeight });
  } finally {
    await service.close();
  }
}

async function checkpointHeight(db: Db): Promise<number> {
  const { rows } = await db.query<{ height: number }>(
    `SELECT height FROM checkpoint WHERE stream = 'blocks'`,
  );
  return Number(rows[0]?.height ?? 0);
}

/** No row of the block stream (blocks, txs, NFTs) lies above the checkpoint. */
async function expectNothingAbove(db: Db, height: number): Promise<void> {
  const { rows } = await db.query<{ blocks: number; txs: number; tokens: number; collections: number }>(
    `SELECT (SELECT count(*) FROM block WHERE height > $1) AS blocks,
            (SELECT count(*) FROM tx WHERE height > $1) AS txs,
            (SELECT count(*) FROM nft WHERE height > $1) AS tokens,
            (SELECT count(*) FROM nft_collection WHERE height > $1) AS collections`,
    [height],
  );
  expect(Object.values(rows[0]!).map(Number)).toEqual([0, 0, 0, 0]);
}

/**
 * The lowest height in from..to whose block makes an NFT look-up, and the objects that block looks
 * up before its first answer: each block of the simulator is run through the VM's collector alone,
 * with look-ups that record their object and fail (as the failing node makes every one of them).
 */
async function firstLookupAtOrAbove(
  vm: 'move' | 'wasm' | 'evm',
  rpcUrl: string,
  from: number,
  to: number,
): Promise<{ height: number; objects: string[] } | undefined> {
  const transport = createTransport({
    name: 'rpc',
    endpoints: [rpcUrl],
    timeoutMs: 10_000,
    maxConcurrent: 2,
  });
  try {
    const comet = createCometClient(transport);
    const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const blocks = await comet.fetchBlocks(heights);
    for (const raw of blocks) {
      if (raw === undefined) throw new Error('the simulator did not produce a block below its head');
      const objects: string[] = [];
      const fail = async (object: string): Promise<never> => {
        objects.push(object);
        throw new Error(`look-up of ${object}`);
      };
      const lookups: NftLookups = {
        moveNft: fail,
        moveCollection: fail,
        wasmCollection: fail,
        wasmTokenUri: fail,
        evmName: fail,
        evmTokenUri: fail,
      };
      await createNftCollector({ vm, prefix: 'init', lookups })(raw).catch(() => undefined);
      if (objects.length > 0) return { height: raw.height, objects };
    }
    return undefined;
  } finally {
    await transport.close();
  }
}
