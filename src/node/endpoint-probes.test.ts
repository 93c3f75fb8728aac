import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../sim/simulator.js';
import type { Simulator, SimulatorUrls } from '../sim/types.js';
import { evmChainIdOf, probeJsonRpc, probeRest, probeRpc, type ProbeSend } from './endpoint-probes.js';

/** A probe's requests sent straight to one base URL. */
const sendTo =
  (base: string): ProbeSend =>
  async (req) => {
    const res = await fetch(base + req.path, {
      method: req.method,
      headers: { 'content-type': 'application/json' },
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    return { status: res.status, text: await res.text() };
  };

describe('endpoint probes against a pruned, lagging EVM node (docs/node-data.md §5.1)', () => {
  let sim: Simulator;
  let urls: SimulatorUrls;
  beforeAll(async () => {
    const options = { vm: 'evm', head: 30, lowestHeight: 12, lagBlocks: 5, fastSignatures: true } as const;
    sim = createSimulator({ ...options, chainId: 'evm-probe-1', rpcPort: 0, restPort: 0, jsonRpcPort: 0 });
    urls = await sim.listen();
  });
  afterAll(() => sim.close());

  it('RPC says the chain and the range it keeps; REST the chain only', async () => {
    expect(await probeRpc(sendTo(urls.rpc))).toEqual({ chainId: 'evm-probe-1', lowest: 12, highest: 25 });
    expect(await probeRest(sendTo(urls.rest))).toEqual({ chainId: 'evm-probe-1' });
  });

  it('a node keeping the last N blocks says its lowest moved with the head', async () => {
    const keeping = createSimulator({
      vm: 'move',
      head: 30,
      keepBlocks: 8,
      fastSignatures: true,
      rpcPort: 0,
      restPort: 0,
    });
    const { rpc } = await keeping.listen();
    try {
      expect(await probeRpc(sendTo(rpc))).toEqual({ chainId: 'minimove-1', lowest: 23, highest: 30 });
    } finally {
      await keeping.close();
    }
  });

  it("JSON-RPC says the EVM chain id minievm derives from the rollup's, and its head", async () => {
    const identity = await probeJsonRpc(sendTo(urls.jsonRpc!));
    expect(identity).toEqual({ chainId: evmChainIdOf('evm-probe-1'), highest: 25 });
    expect(identity.chainId).not.toBe(evmChainIdOf('minievm-1'));
  });
});
