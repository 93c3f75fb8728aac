import { afterAll } from 'vitest';
import { createSimulator } from '../../../src/sim/simulator.js';
import type { Simulator, SimulatorOptions, SimulatorUrls } from '../../../src/sim/types.js';

export interface StartedSimulator {
  sim: Simulator;
  urls: SimulatorUrls;
}

/**
 * For one test file: a function that starts an in-process simulator on free ports (CometBFT RPC,
 * REST and EVM JSON-RPC) and listens; everything it started is closed after the file's tests.
 * Call it at the top level of the file (it registers the afterAll hook).
 */
export function useSimulators(): (options: SimulatorOptions) => Promise<StartedSimulator> {
  const started: Simulator[] = [];
  afterAll(() => Promise.all(started.map((s) => s.close())));
  return async (options) => {
    const sim = createSimulator({ rpcPort: 0, restPort: 0, jsonRpcPort: 0, ...options });
    started.push(sim);
    return { sim, urls: await sim.listen() };
  };
}
