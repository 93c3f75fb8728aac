import type { Db } from '../../src/store/driver/db.js';
import type { MessageSchema } from '../../src/shared/proto/schema.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createIngestService, type IngestService } from '../../src/ingest/service.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorOptions, SimulatorUrls, VmType } from '../../src/sim/types.js';

export interface IndexedSimulator {
  sim: Simulator;
  urls: SimulatorUrls;
  close(): Promise<void>;
}

/** Starts an in-process simulator on free ports and indexes heights 1..head into db. */
export async function indexSimulator(args: {
  db: Db;
  vm: VmType;
  head: number;
  txsPerBlock?: string;
  sim?: Partial<SimulatorOptions>;
  /** Heights to index; defaults to head. */
  untilHeight?: number;
  /** Index in steps, stopping (and resuming) at each of these heights first; told after each. */
  stops?: { heights: number[]; at(height: number, sim: Simulator): Promise<void> };
  logger?: Logger;
}): Promise<IndexedSimulator> {
  const { sim, urls } = await startSimulator(args);
  try {
    await ingestFrom({
      db: args.db,
      vm: args.vm,
      urls,
      untilHeight: args.untilHeight ?? args.head,
      ...(args.stops ? { stops: { heights: args.stops.heights, at: (h) => args.stops!.at(h, sim) } } : {}),
      ...(args.logger ? { logger: args.logger } : {}),
    });
  } catch (err) {
    await sim.close();
    throw err;
  }
  return { sim, urls, close: () => sim.close() };
}

export interface FollowedSimulator extends IndexedSimulator {
  /** Set once ingest stopped: by `close`, or on its own with an error. */
  outcome(): { error?: unknown } | undefined;
}

/**
 * Starts an in-process simulator held at `head` and the ingest service following it with no last
 * height, as `rollup-indexer indexer` runs against a chain that stopped producing blocks: the block
 * stream and the stages keep waiting for a block that never comes. `close` stops both.
 */
export async function followSimulator(args: {
  db: Db;
  vm: VmType;
  head: number;
  txsPerBlock?: string;
  sim?: Partial<SimulatorOptions>;
  logger?: Logger;
}): Promise<FollowedSimulator> {
  const { sim, urls } = await startSimulator(args);
  let service: IngestService;
  try {
    service = await ingestServiceFor(args, urls);
  } catch (err) {
    await sim.close();
    throw err;
  }
  const stop = new AbortController();
  let outcome: { error?: unknown } | undefined;
  const running = service.run({ signal: stop.signal }).then(
    () => (outcome = {}),
    (error: unknown) => (outcome = { error }),
  );
  return {
    sim,
    urls,
    outcome: () => outcome,
    async close() {
      stop.abort();
      await running;
      await service.close();
      await sim.close();
    },
  };
}

export async function startSimulator(args: {
  vm: VmType;
  head: number;
  txsPerBlock?: string;
  sim?: Partial<SimulatorOptions>;
}): Promise<{ sim: Simulator; urls: SimulatorUrls }> {
  const sim = createSimulator({
    vm: args.vm,
    head: args.head,
    rpcPort: 0,
    restPort: 0,
    jsonRpcPort: 0,
    ...(args.txsPerBlock ? { txsPerBlock: args.txsPerBlock } : {}),
    ...args.sim,
  });
  return { sim, urls: await sim.listen() };
}

/**
 * Prepare workers of the helpers' ingest runs: TEST_PREPARE_WORKERS=1 runs the ingest suites on
 * the worker path (each run then loads a worker thread through tsx: seconds on a busy host).
 */
export const PREPARE_WORKERS = Number(process.env.TEST_PREPARE_WORKERS ?? 0);

function ingestServiceFor(
  args: {
    db: Db;
    vm: VmType;
    logger?: Logger;
    stages?: { internalTx?: boolean; richList?: boolean };
    prepareWorkers?: number;
    /** Message schemas added to the decoder's registry (a later release's types). */
    protoExtensions?: readonly MessageSchema[];
    /**
     * 2 s by default, so node faults cost the fault tests little. A run that is an oracle for a
     * comparison passes more: a proposer's moniker asked in vain is not asked again once the run's
     * last block is prepared, and a loaded host answered that look-up past 2 s.
     */
    requestTimeoutMs?: number;
  },
  urls: SimulatorUrls,
) {
  return createIngestService({
    options: {
      chainId: undefined,
      vmType: args.vm,
      endpoints: { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] },
      maxConcurrentRequests: 8,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: args.requestTimeoutMs ?? 2_000,
      ...(args.stages?.internalTx === undefined ? {} : { internalTx: args.stages.internalTx }),
      ...(args.stages?.richList === undefined ? {} : { richList: args.stages.richList }),
      prepareWorkers: args.prepareWorkers ?? PREPARE_WORKERS,
      ...(args.protoExtensions ? { protoExtensions: args.protoExtensions } : {}),
    },
    logger: args.logger ?? silentLogger(),
    db: args.db,
    registry: createMetricsRegistry({ defaultMetrics: false }),
  });
}

/**
 * Runs the real ingest service against a listening simulator until `untilHeight` is committed by
 * the block stream and by every enabled stage. `stages` switches stages as the INTERNAL_TX and
 * RICH_LIST settings do.
 */
export async function ingestFrom(args: {
  db: Db;
  vm: VmType;
  urls: SimulatorUrls;
  untilHeight: number;
  stages?: { internalTx?: boolean; richList?: boolean };
  stops?: { heights: number[]; at(height: number): Promise<void> };
  logger?: Logger;
  protoExtensions?: readonly MessageSchema[];
  requestTimeoutMs?: number;
}): Promise<void> {
  const service = await ingestServiceFor(args, args.urls);
  try {
    for (const height of args.stops?.heights ?? []) {
      await service.run({ signal: new AbortController().signal, untilHeight: height });
      await args.stops!.at(height);
    }
    await service.run({ signal: new AbortController().signal, untilHeight: args.untilHeight });
  } finally {
    await service.close();
  }
}
