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
import type { FaultCounts, Simulator, SimulatorUrls } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { PREPARE_WORKERS } from '../helpers/ingest.js';
import { expectInternalTxsMatchTruth } from '../helpers/truth-internal-txs.js';
import { expectRichListMatchesTruth, stageHeight } from '../helpers/truth-rich-list.js';
import { expectIngestMatchesTruth, expectNftMatchesTruth } from '../helpers/truth.js';

/**
 * The node goes away at every phase (docs/ingest.md §10) — mid-backfill, while the internal-tx and
 * rich-list stages catch up, and at the head — for many times the attempts the old budgets allowed
 * (10, after which a stage stopped the process). The outage is long in attempts, not in seconds: a
 * test-sized backoff cap, and the node comes back once the waits board has seen OUTAGE_ATTEMPTS
 * retries of each part. Meanwhile the API of the same process answers every route it is asked;
 * afterwards every stage reaches the head and equals the simulator's truth.
 *
 * EVM only, one store: EVM is the VM with every stage (internal txs, rich list by ERC20 balances,
 * NFT look-ups through minievm); what waits is the runner and the fetch window, the same on each VM.
 */
const HEAD = 60;
const CHAIN_ID = 'outage-evm-1';
/** Retries of each waiting part before the node comes back: the old budget was 10 attempts. */
const OUTAGE_ATTEMPTS = 15;
/** Test-sized backoff: the outage is long in attempts, short in seconds. */
const NODE_RETRY = { baseMs: 5, capMs: 40 };
/** Generous for a loaded 2-core machine; the conditions themselves end each wait. */
const DEADLINE_MS = 120_000;
const ROUTES = [
  '/status',
  '/health',
  '/indexer/block/v1/blocks?pagination.limit=3',
  '/indexer/tx/v1/txs?pagination.limit=3',
  '/indexer/tx/v1/evm-txs?pagination.limit=3',
  '/indexer/tx/v1/evm-internal-txs?pagination.limit=3',
  '/metrics',
];

const factory = testDbFactories().at(-1)!;

describe(`a node outage at every phase, on ${factory.name}/evm`, () => {
  let db: Db;
  let dispose: () => Promise<void>;
  let sim: Simulator;
  let urls: SimulatorUrls;
  beforeEach(async () => {
    ({ db, dispose } = await factory.create());
    sim = createSimulator({
      vm: 'evm',
      chainId: CHAIN_ID,
      head: HEAD,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
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
      // Backfill, stages off: the node goes away once the block stream is a third of the way.
      const backfill = await startIndexer(db, urls, { internalTx: false, richList: false });
      let down = false;
      const backfilled = backfill.run(
        HEAD,
        (p) => {
          if (down || p.height < HEAD / 3) return;
          down = true;
          sim.outage('reset');
          // A few heights fetched at a time, so most of the chain is still to fetch at a third.
        },
        { chunkSize: 4, maxChunksInFlight: 1, maxBufferedTxs: 1 },
      );
      await untilDown(() => down);
      const atBackfill = await outage(sim, backfill, ['block stream'], undefined);
      expect(atBackfill.height).toBeLessThan(HEAD);
      await backfilled;
      await backfill.close();

      // The stages start behind the block stream (at the head): the node goes away as they start.
      const stages = await startIndexer(db, urls, { internalTx: true, richList: true });
      const following = stages.run(undefined);
      sim.outage('5xx');
      await outage(sim, stages, ['internal_tx stage', 'rich_list stage'], '5xx');
      await untilCaughtUp(db, stages);

      // At the head: the block stream waits on the node's head.
      sim.outage('reset');
      await outage(sim, stages, ['block stream'], 'reset');
      await stages.close();
      await following;

      await expectIngestMatchesTruth(db, sim, HEAD);
      await expectNftMatchesTruth(db, sim, HEAD);
      expect(await expectInternalTxsMatchTruth(db, sim, HEAD)).toBeGreaterThan(0);
      expect(await expectRichListMatchesTruth(db, sim, HEAD)).toBeGreaterThan(0);
      expect(sim.faultLog().rpc.reset).toBeGreaterThan(0);
      expect(sim.faultLog().jsonrpc['5xx']).toBeGreaterThan(0);
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
  stages: { internalTx: boolean; richList: boolean },
): Promise<Indexer> {
  const waits = createNodeWaits();
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const service = await createIngestService({
    options: {
      chainId: CHAIN_ID,
      vmType: 'evm',
      endpoints: { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: [urls.jsonRpc!] },
      maxConcurrentRequests: 8,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
      nodeRetry: NODE_RETRY,
      prepareWorkers: PREPARE_WORKERS,
      ...stages,
    },
    logger: silentLogger(),
    db,
    registry,
    waits,
  });
  const api = await createApiApp({
    options: loadApiOptions({ CHAIN_ID, VM_TYPE: 'evm', API_CACHE: 'false' }),
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
 * until nothing waits. Returns the block stream's height during the outage.
 */
async function outage(
  sim: Simulator,
  indexer: Indexer,
  parts: string[],
  kind: keyof FaultCounts | undefined,
): Promise<{ height: number }> {
  const deadline = Date.now() + DEADLINE_MS;
  let height = 0;
  for (;;) {
    expect(indexer.stopped(), 'ingest keeps going through the outage').toBeUndefined();
    const answers = await Promise.all(ROUTES.map((url) => indexer.api.inject({ url })));
    expect(answers.map((a, i) => `${ROUTES[i]} ${a.statusCode}`)).toEqual(ROUTES.map((url) => `${url} 200`));
    const status = JSON.parse(answers[0]!.body) as {
      height: number;
      waiting?: { what: string; attempts: number }[];
    };
    height = status.height;
    const waiting = status.waiting ?? [];
    expect(JSON.parse(answers[1]!.body)).toMatchObject({ status: 'ok' });
    const seen = parts.filter((part) =>
      waiting.some((w) => w.what.startsWith(`${part}:`) && w.attempts >= OUTAGE_ATTEMPTS),
    );
    if (seen.length === parts.length) {
      expect(answers[ROUTES.length - 1]!.body).toMatch(
        /rollup_indexer_node_wait_seconds\{part="[a-z_]+"\} \d/,
      );
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
  return { height };
}

async function untilDown(down: () => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!down()) {
    if (Date.now() > deadline) throw new Error('the block stream never reached a third of the chain');
    await abortableDelay(20);
  }
}

/** Every stage at the head, from the API's `/status`. */
async function untilCaughtUp(db: Db, indexer: Indexer): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    expect(indexer.stopped()).toBeUndefined();
    const res = await indexer.api.inject({ url: '/status' });
    const status = JSON.parse(res.body) as Record<string, unknown>;
    if (status.internal_tx_height === HEAD && status.rich_list_height === HEAD) break;
    if (Date.now() > deadline)
      throw new Error(`stages not at ${HEAD}: ${res.body} (rich_list ${await stageHeight(db, 'rich_list')})`);
    await abortableDelay(20);
  }
}
