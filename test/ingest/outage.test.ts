import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { createIngestService, type IngestService } from '../../src/ingest/service.js';
import type { PipelineTuning, Progress } from '../../src/ingest/pipeline.js';
import { abortableDelay } from '../../src/node/retry.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createNodeWaits, type NodeWaits } from '../../src/shared/node-waits.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { FaultCounts, Simulator, SimulatorUrls, VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { PREPARE_WORKERS } from '../helpers/ingest.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth, stageHeight } from '../helpers/truth-rich-list.js';
import { expectIngestMatchesTruth, expectNftMatchesTruth } from '../helpers/truth.js';

/**
 * The node goes away at every phase (docs/ingest.md §10) — mid-backfill, while the stages catch up,
 * and at the head — for many times the attempts the old budgets allowed (10, after which a stage
 * stopped the process). The outage is long in attempts, not in seconds: a test-sized backoff cap,
 * and the node comes back once the waits board has seen OUTAGE_ATTEMPTS retries of each part.
 * Meanwhile the API of the same process answers every route it is asked; afterwards every stage
 * reaches the head and equals the simulator's truth.
 *
 * Each VM, one store (what waits is the runner and the fetch window, the same SQL on either store):
 * EVM has every stage (internal txs by traces, the rich list by `eth_call` balances, NFT look-ups
 * through minievm); Move and Wasm the rich-list stage, whose snapshot and balances come from REST,
 * and NFT look-ups through REST — on a shorter chain, since what differs is only where they read.
 */
interface VmCase {
  vm: VmType;
  head: number;
  /** The stages' parts that must be seen waiting, each with the surface its first reads wait on. */
  stages: Record<string, 'rest' | 'jsonrpc'>;
  /** Asked while the node is away; `/status` first, `/health` second, `/metrics` last. */
  routes: string[];
}
const COMMON_ROUTES = [
  '/status',
  '/health',
  '/indexer/block/v1/blocks?pagination.limit=3',
  '/indexer/tx/v1/txs?pagination.limit=3',
];
const CASES: VmCase[] = [
  {
    vm: 'evm',
    head: 60,
    // Traces on JSON-RPC; the rich list starts with its snapshot of the auth accounts on REST.
    stages: { 'internal_tx stage': 'jsonrpc', 'rich_list stage': 'rest' },
    routes: [
      ...COMMON_ROUTES,
      '/indexer/tx/v1/evm-txs?pagination.limit=3',
      '/indexer/tx/v1/evm-internal-txs?pagination.limit=3',
      '/metrics',
    ],
  },
  ...(['move', 'wasm'] as const).map((vm) => ({
    vm,
    head: 30,
    stages: { 'rich_list stage': 'rest' as const },
    routes: [...COMMON_ROUTES, '/indexer/nft/v1/collections?pagination.limit=3', '/metrics'],
  })),
];
/** Retries of each waiting part before the node comes back: the old budget was 10 attempts. */
const OUTAGE_ATTEMPTS = 15;
/** Test-sized backoff: the outage is long in attempts, short in seconds. */
const NODE_RETRY = { baseMs: 5, capMs: 40 };
/** Generous for a loaded 2-core machine; the conditions themselves end each wait. */
const DEADLINE_MS = 120_000;

const factory = testDbFactories().at(-1)!;

describe.each(CASES)(`a node outage at every phase, on ${factory.name}/$vm`, (vmCase) => {
  const { vm, head } = vmCase;
  const chainId = `outage-${vm}-1`;
  let db: Db;
  let dispose: () => Promise<void>;
  let sim: Simulator;
  let urls: SimulatorUrls;
  beforeEach(async () => {
    ({ db, dispose } = await factory.create());
    sim = createSimulator({
      vm,
      chainId,
      head,
      rpcPort: 0,
      restPort: 0,
      ...(vm === 'evm' ? { jsonRpcPort: 0 } : {}),
      txsPerBlock: '0-6',
      fastSignatures: true,
    });
    urls = await sim.listen();
  });
  afterEach(async () => {
    await sim.close();
    await dispose();
  });

  it(
    'never stops: the API answers throughout, every part says it waits, and each resumes to the truth',
    { timeout: 4 * DEADLINE_MS },
    async () => {
      const open = (stages: boolean) => startIndexer(db, urls, { vm, chainId, stages });
      // Backfill, stages off: the node goes away once the block stream is a third of the way.
      const backfill = await open(false);
      let down = false;
      const backfilled = backfill.run(
        head,
        (p) => {
          if (down || p.height < head / 3) return;
          down = true;
          sim.outage('reset');
          // A few heights fetched at a time, so most of the chain is still to fetch at a third.
        },
        { chunkSize: 4, maxChunksInFlight: 1, maxBufferedTxs: 1 },
      );
      await untilDown(() => down);
      const atBackfill = await outage(sim, backfill, vmCase, ['block stream'], undefined);
      expect(atBackfill.height).toBeLessThan(head);
      await backfilled;
      await backfill.close();

      // The stages start behind the block stream (at the head): the node goes away as they start.
      const stages = await open(true);
      const following = stages.run(undefined);
      sim.outage('5xx');
      const atStages = await outage(sim, stages, vmCase, Object.keys(vmCase.stages), '5xx');
      // Each stage was seen waiting on its own reads.
      expect(atStages.on).toEqual(vmCase.stages);
      await untilCaughtUp(db, stages, head);

      // At the head: the block stream waits on the node's head.
      sim.outage('reset');
      await outage(sim, stages, vmCase, ['block stream'], 'reset');
      await stages.close();
      await following;

      await expectIngestMatchesTruth(db, sim, head);
      await expectNftMatchesTruth(db, sim, head);
      if (vm === 'evm') expect(await expectInternalTxsMatchTruth(db, sim, head)).toBeGreaterThan(0);
      expect(await expectRichListMatchesTruth(db, sim, head)).toBeGreaterThan(0);
      expect(sim.faultLog().rpc.reset).toBeGreaterThan(0);
      for (const surface of Object.values(vmCase.stages))
        expect(sim.faultLog()[surface]['5xx']).toBeGreaterThan(0);
    },
  );
});

interface Indexer {
  waits: NodeWaits;
  api: FastifyInstance;
  service: IngestService;
  /** Set once the service stopped on its own (it must not). */
  stopped(): unknown;
  run(
    untilHeight: number | undefined,
    onCommit?: (p: Progress) => void,
    tuning?: Partial<PipelineTuning>,
  ): Promise<void>;
  close(): Promise<void>;
}

/** The ingest service and an API app of one process (as `start` wires them): one waits board. */
async function startIndexer(
  db: Db,
  urls: SimulatorUrls,
  { vm, chainId, stages }: { vm: VmType; chainId: string; stages: boolean },
): Promise<Indexer> {
  const waits = createNodeWaits();
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const service = await createIngestService({
    options: {
      chainId,
      vmType: vm,
      endpoints: { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] },
      maxConcurrentRequests: 8,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
      nodeRetry: NODE_RETRY,
      prepareWorkers: PREPARE_WORKERS,
      internalTx: stages && vm === 'evm',
      richList: stages,
    },
    logger: silentLogger(),
    db,
    registry,
    waits,
  });
  const api = await createApiApp({
    options: loadApiOptions({ CHAIN_ID: chainId, VM_TYPE: vm, API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: registry,
    nodeWaits: waits,
  });
  await api.ready();
  const stop = new AbortController();
  let stopped: unknown;
  let running: Promise<void> = Promise.resolve();
  return {
    waits,
    api,
    service,
    stopped: () => stopped,
    run(untilHeight, onCommit, tuning) {
      running = service
        .run({
          signal: stop.signal,
          ...(tuning ? { tuning } : {}),
          ...(untilHeight === undefined ? {} : { untilHeight }),
          ...(onCommit ? { onCommit } : {}),
        })
        .then(
          () => {
            // A run with a last height ends by itself; one without must be stopped by `close`.
            if (untilHeight === undefined && !stop.signal.aborted) stopped = 'ended on its own';
          },
          (err: unknown) => void (stopped = err),
        );
      return running;
    },
    async close() {
      stop.abort();
      await running;
      await api.close();
      await service.close();
      expect(stopped, 'ingest stopped on its own').toBeUndefined();
    },
  };
}

/**
 * While the node is down: polls the API (every route answers as it should) until each of `parts`
 * shows in `/status` as waiting with OUTAGE_ATTEMPTS retries, then brings the node back and waits
 * until nothing waits. Returns the block stream's height during the outage and the surface each
 * part was last seen waiting on.
 */
async function outage(
  sim: Simulator,
  indexer: Indexer,
  { routes }: VmCase,
  parts: string[],
  kind: keyof FaultCounts | undefined,
): Promise<{ height: number; on: Record<string, string> }> {
  const deadline = Date.now() + DEADLINE_MS;
  let height = 0;
  const on: Record<string, string> = {};
  for (;;) {
    expect(indexer.stopped(), 'ingest keeps going through the outage').toBeUndefined();
    const answers = await Promise.all(routes.map((url) => indexer.api.inject({ url })));
    expect(answers.map((a, i) => `${routes[i]} ${a.statusCode}`)).toEqual(routes.map((url) => `${url} 200`));
    const status = JSON.parse(answers[0]!.body) as {
      height: number;
      waiting?: { on: string; what: string; attempts: number }[];
    };
    height = status.height;
    const waiting = status.waiting ?? [];
    expect(JSON.parse(answers[1]!.body)).toMatchObject({ status: 'ok' });
    const seen = parts.filter((part) =>
      waiting.some((w) => {
        if (!w.what.startsWith(`${part}:`) || w.attempts < OUTAGE_ATTEMPTS) return false;
        on[part] = w.on;
        return true;
      }),
    );
    if (seen.length === parts.length) {
      expect(answers.at(-1)!.body).toMatch(/rollup_indexer_node_wait_seconds\{part="[a-z_]+"\} \d/);
      break;
    }
    if (Date.now() > deadline) throw new Error(`waits never shown: ${JSON.stringify(waiting)} (${kind})`);
    await abortableDelay(20);
  }
  sim.outage(undefined);
  while (indexer.waits.list().length > 0) {
    expect(indexer.stopped()).toBeUndefined();
    if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(indexer.waits.list())}`);
    await abortableDelay(20);
  }
  return { height, on };
}

async function untilDown(down: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!down()) {
    if (Date.now() > deadline) throw new Error('the block stream never reached a third of the chain');
    await abortableDelay(20);
  }
}

/** Every stage at the head, from the API's `/status`. */
async function untilCaughtUp(db: Db, indexer: Indexer, head: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    expect(indexer.stopped()).toBeUndefined();
    const res = await indexer.api.inject({ url: '/status' });
    const status = JSON.parse(res.body) as Record<string, unknown>;
    const internalTx = status.internal_tx_height ?? head; // absent where the stage never ran
    if (internalTx === head && status.rich_list_height === head) break;
    if (Date.now() > deadline)
      throw new Error(`stages not at ${head}: ${res.body} (rich_list ${await stageHeight(db, 'rich_list')})`);
    await abortableDelay(20);
  }
}
