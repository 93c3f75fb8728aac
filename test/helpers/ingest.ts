import type { Db } from '../../src/store/db.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { createIngestService } from '../../src/ingest/service.js';
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
  const sim = createSimulator({
    vm: args.vm,
    head: args.head,
    rpcPort: 0,
    restPort: 0,
    jsonRpcPort: 0,
    ...(args.txsPerBlock ? { txsPerBlock: args.txsPerBlock } : {}),
    ...args.sim,
  });
  const urls = await sim.listen();
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
}): Promise<void> {
  const { urls } = args;
  const service = await createIngestService({
    options: {
      chainId: undefined,
      vmType: args.vm,
      endpoints: { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] },
      maxConcurrentRequests: 8,
      accountPrefix: 'init',
      startHeight: undefined,
      requestTimeoutMs: 2_000,
      ...(args.stages?.internalTx === undefined ? {} : { internalTx: args.stages.internalTx }),
      ...(args.stages?.richList === undefined ? {} : { richList: args.stages.richList }),
    },
    logger: args.logger ?? silentLogger(),
    db: args.db,
    registry: createMetricsRegistry({ defaultMetrics: false }),
  });
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
