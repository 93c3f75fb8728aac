import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/sim/simulator.js';
import type { SimulatorOptions } from '../../src/sim/types.js';
import { useSimulators } from './helpers/sims.js';

const startSim = useSimulators();
const start = (options: Partial<SimulatorOptions> = {}) =>
  startSim({ vm: 'move', head: 10_000_000, seed: 11, ...options });

async function text(url: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.text() };
}

const HEIGHTS = [10_000_000, 1, 2, 777_777, 9_999_999, 123];

describe('determinism and random access', () => {
  it('two instances answer byte-identically, whatever order heights are asked in', async () => {
    const a = await start();
    const b = await start();
    const paths = (h: number): string[] => [`/block?height=${h}`, `/block_results?height=${h}`];
    const answersA: string[] = [];
    for (const h of HEIGHTS) for (const p of paths(h)) answersA.push((await text(a.urls.rpc + p)).body);
    const answersB: string[] = [];
    for (const h of [...HEIGHTS].reverse())
      for (const p of [...paths(h)].reverse()) answersB.push((await text(b.urls.rpc + p)).body);
    expect(answersB.reverse()).toEqual(answersA);
    for (const h of HEIGHTS) {
      const restA = await text(`${a.urls.rest}/cosmos/tx/v1beta1/txs/block/${h}`);
      const restB = await text(`${b.urls.rest}/cosmos/tx/v1beta1/txs/block/${h}`);
      expect(restA).toEqual(restB);
      expect(a.sim.truth.block(h)).toEqual(b.sim.truth.block(h));
    }
  });

  it('answers in-process (Simulator.answer) what its servers answer, POST batches and REST included', async () => {
    const { sim, urls } = await start();
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'block', params: { height: '777777' } },
      { jsonrpc: '2.0', id: 2, method: 'block_results', params: { height: '777777' } },
    ]);
    const over = await text(urls.rpc, {
      method: 'POST',
      body: batch,
      headers: { 'content-type': 'application/json' },
    });
    const inProcess = await sim.answer('rpc', {
      method: 'POST',
      path: '/',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json' },
      body: JSON.parse(batch),
    });
    expect({ status: inProcess.status, body: inProcess.body.toString() }).toEqual(over);
    const path = '/cosmos/tx/v1beta1/txs/block/123';
    const rest = await sim.answer('rest', {
      method: 'GET',
      path,
      query: new URLSearchParams(),
      headers: {},
      body: undefined,
    });
    expect({ status: rest.status, body: rest.body.toString() }).toEqual(await text(urls.rest + path));
  });

  it('a different seed gives a different chain', async () => {
    const a = await start();
    const c = await start({ seed: 12 });
    expect((await text(`${a.urls.rpc}/block?height=50`)).body).not.toEqual(
      (await text(`${c.urls.rpc}/block?height=50`)).body,
    );
  });

  it('serves height 10,000,000 directly, linked to its parent', async () => {
    const { urls } = await start();
    const top = JSON.parse((await text(`${urls.rpc}/block?height=10000000`)).body) as {
      result: { block: { header: { height: string; last_block_id: { hash: string } } } };
    };
    const parent = JSON.parse((await text(`${urls.rpc}/block?height=9999999`)).body) as {
      result: { block_id: { hash: string } };
    };
    expect(top.result.block.header.height).toBe('10000000');
    expect(top.result.block.header.last_block_id.hash).toBe(parent.result.block_id.hash);
  });
});

describe('CometBFT error bodies', () => {
  it('future height, height 0 and pruned height: HTTP 500 over GET, code -32603', async () => {
    const { urls } = await start({ head: 100, faults: 'pruned=10' });
    const future = await text(`${urls.rpc}/block?height=101`);
    expect(future.status).toBe(500);
    expect(JSON.parse(future.body)).toEqual({
      jsonrpc: '2.0',
      id: -1,
      error: {
        code: -32603,
        message: 'Internal error',
        data: 'height 101 must be less than or equal to the current blockchain height 100',
      },
    });
    const zero = await text(`${urls.rpc}/block_results?height=0`);
    expect(zero.status).toBe(500);
    expect(JSON.parse(zero.body).error.data).toBe('height must be greater than 0, but got 0');
    const pruned = await text(`${urls.rpc}/block?height=5`);
    expect(pruned.status).toBe(500);
    expect(JSON.parse(pruned.body).error.data).toBe('height 5 is not available, lowest height is 10');
  });

  it('POST batches keep ids, answer errors in place with HTTP 200, and omit notifications', async () => {
    const { urls } = await start({ head: 100 });
    const res = await text(urls.rpc, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'block', params: { height: '100' } },
        { jsonrpc: '2.0', id: 7, method: 'block', params: ['101'] },
        { jsonrpc: '2.0', method: 'health', params: {} },
        { jsonrpc: '2.0', id: 8, method: 'no_such_method', params: {} },
      ]),
    });
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.body) as Array<{
      id: unknown;
      result?: unknown;
      error?: { code: number; data?: string };
    }>;
    expect(answers.map((a) => a.id)).toEqual(['a', 7, 8]);
    expect(answers[0]!.result).toBeDefined();
    expect(answers[1]!.error).toMatchObject({
      code: -32603,
      data: 'height 101 must be less than or equal to the current blockchain height 100',
    });
    expect(answers[2]!.error).toMatchObject({ code: -32601 });
  });

  it('block_results lagging /block reports "could not find results for height"', async () => {
    const { urls } = await start({ head: 100, faults: 'lag=2' });
    expect((await text(`${urls.rpc}/block?height=100`)).status).toBe(200);
    const lagging = await text(`${urls.rpc}/block_results?height=99`);
    expect(lagging.status).toBe(500);
    expect(JSON.parse(lagging.body).error.data).toBe('could not find results for height #99');
    expect((await text(`${urls.rpc}/block_results?height=98`)).status).toBe(200);
  });

  it('empty blocks: txs [] in /block, txs_results null in /block_results', async () => {
    const { urls } = await start({ head: 100, txsPerBlock: '0' });
    const block = JSON.parse((await text(`${urls.rpc}/block?height=3`)).body) as {
      result: { block: { data: { txs: unknown[] }; header: { data_hash: string } } };
    };
    expect(block.result.block.data.txs).toEqual([]);
    expect(block.result.block.header.data_hash).toBe(
      'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    );
    const results = (await text(`${urls.rpc}/block_results?height=3`)).body;
    expect(results).toContain('"txs_results":null');
    expect(results).toContain('"finalize_block_events":[]');
  });
});

describe('keyring size (--accounts)', () => {
  it('every signer comes from a keyring of the given size, so a small keyring makes busy accounts', () => {
    const sim = createSimulator({ vm: 'move', head: 400, seed: 5, accounts: 4, txsPerBlock: '5' });
    const signers = new Map<string, number>();
    for (let h = 1; h <= 400; h++) {
      for (const tx of sim.truth.block(h).txs) signers.set(tx.signer, (signers.get(tx.signer) ?? 0) + 1);
    }
    expect(signers.size).toBe(4);
    // Round-robin signing: each of the four signs a quarter of the 2,000 txs.
    expect([...signers.values()]).toEqual([500, 500, 500, 500]);
  });

  it('rejects a keyring too small for a transfer to have a recipient', () => {
    expect(() => createSimulator({ vm: 'move', accounts: 1 })).toThrow(/--accounts must be an integer/);
  });
});
