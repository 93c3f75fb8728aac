import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../src/sim/types.js';
import { useSimulators } from '../sim/helpers/sims.js';
import { useCliProcesses, type CliProcess } from './cli-process.js';
import { storeIndependentIndex, writeMigratedPgliteDir, type ChildIndex } from './db.js';
import { freePort } from './pg-cluster.js';

/**
 * For the hook that calls `start()`: the chain's first heights are indexed by a CLI child starting
 * beside a live chain, over 2 minutes (the default hook timeout) on a host at load 40.
 */
export const LIVE_START_TIMEOUT_MS = 300_000;

/** `start` on a live simulated chain, on a port it keeps across restarts. */
export interface LiveStart {
  sim: Simulator;
  /** `http://127.0.0.1:<port>` of the API. */
  base: string;
  api(): CliProcess;
  /** SIGTERM (must exit 0), then the same command on the same port and data directory. */
  restart(): Promise<void>;
}

/**
 * For one describe block: `start()` launches the chain and `start`, and waits until `readyAt` is
 * indexed; everything is stopped (the process before its data directory goes) after the block.
 * `start` runs on the embedded database, or with `anyStore` (a test whose subject does not depend on
 * the store) on a PostgreSQL database of its own when PostgreSQL is in the run.
 */
export function useLiveStart(options: {
  sim: Partial<SimulatorOptions> & { head: number };
  env?: Record<string, string>;
  anyStore?: boolean;
}): () => Promise<LiveStart> {
  const simulator = useSimulators();
  const cli = useCliProcesses();
  let dir: string | undefined;
  let api: CliProcess | undefined;
  let index: ChildIndex | undefined;
  afterAll(async () => {
    // The process still writes to its data directory until it has exited.
    api?.kill('SIGKILL');
    await api?.exited;
    await index?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-live-'));
    const { sim, urls } = await simulator({
      vm: 'move',
      live: true,
      blockTimeMs: 200,
      fastSignatures: true,
      ...options.sim,
    });
    const port = await freePort();
    const dataDir = path.join(dir, 'data');
    if (options.anyStore) index = await storeIndependentIndex(dataDir);
    // Migrated from the run's snapshot: the streams are what these tests follow, not initdb.
    else await writeMigratedPgliteDir(dataDir);
    const env = {
      ...(index?.env ?? { DATA_DIR: dataDir }),
      RPC_URL: urls.rpc,
      REST_URL: urls.rest,
      // Prepared on the main thread: the streams do not depend on where blocks are prepared, and a
      // thread costs the child its own module graph (crash.test.ts runs the default threads).
      PREPARE_WORKERS: '0',
      ...options.env,
    };
    const launch = async () => {
      api = cli(['start', '--port', String(port), '--host', '127.0.0.1'], env);
      await api.url();
    };
    await launch();
    await api!.waitForHeight(options.sim.head);
    return {
      sim,
      base: `http://127.0.0.1:${port}`,
      api: () => api!,
      async restart() {
        api!.kill('SIGTERM');
        expect((await api!.exited).code, api!.lastLines()).toBe(0);
        await launch();
      },
    };
  };
}
