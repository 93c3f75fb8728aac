import { beforeAll, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { useSimulators } from './helpers/sims.js';

const start = useSimulators();
let sim: Simulator;
let urls: SimulatorUrls;
beforeAll(async () => {
  ({ sim, urls } = await start({ vm: 'move', head: 50, txsPerBlock: '250', seed: 5, fastSignatures: true }));
});

async function json<T = Record<string, unknown>>(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T };
}

interface TxsPage {
  txs: Array<{ signatures: string[]; body: { messages: Array<{ '@type': string }> } }>;
  block_id: { hash: string };
  block: { header: { height: string; proposer_address: string } };
  pagination: { next_key: null; total: string };
}

describe('Cosmos REST', () => {
  it('txs/block pages with offset/limit like the SDK (next_key null, total = block size)', async () => {
    const raw = await json<{ result: { block: { data: { txs: string[] } }; block_id: { hash: string } } }>(
      `${urls.rpc}/block?height=7`,
    );
    const rawTxs = raw.body.result.block.data.txs;
    expect(rawTxs).toHaveLength(250);
    const seen: string[] = [];
    for (let offset = 0; offset < 250; offset += 100) {
      const page = await json<TxsPage>(
        `${urls.rest}/cosmos/tx/v1beta1/txs/block/7?pagination.limit=100&pagination.offset=${offset}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.pagination).toEqual({ next_key: null, total: '250' });
      expect(Buffer.from(page.body.block_id.hash, 'base64').toString('hex').toUpperCase()).toBe(
        raw.body.result.block_id.hash,
      );
      seen.push(...page.body.txs.map((t) => t.signatures.join(',')));
    }
    const expected = rawTxs.map((_, i) => sim.truth.block(7).txs[i]!.hash);
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(expected).toHaveLength(250);
    const outOfRange = await json<{ code: number; message: string }>(
      `${urls.rest}/cosmos/tx/v1beta1/txs/block/7?pagination.limit=100&pagination.offset=300`,
    );
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.code).toBe(3);
    const noPagination = await json<TxsPage>(`${urls.rest}/cosmos/tx/v1beta1/txs/block/7`);
    expect(noPagination.body.txs).toHaveLength(100);
  });

  it('tx by hash gives the REST tx and tx_response with @type, events and timestamp', async () => {
    const truth = sim.truth.block(9);
    const t = truth.txs[3]!;
    const res = await json<{
      tx: unknown;
      tx_response: Record<string, unknown> & { tx: { '@type': string }; events: unknown[] };
    }>(`${urls.rest}/cosmos/tx/v1beta1/txs/${t.hash}`);
    expect(res.status).toBe(200);
    expect(res.body.tx_response.txhash).toBe(t.hash);
    expect(res.body.tx_response.height).toBe('9');
    expect(res.body.tx_response.code).toBe(t.code);
    expect(res.body.tx_response.timestamp).toBe(truth.time);
    expect(res.body.tx_response.tx['@type']).toBe('/cosmos.tx.v1beta1.Tx');
    expect(res.body.tx_response.events.length).toBeGreaterThan(5);
    const missing = await json<{ code: number }>(`${urls.rest}/cosmos/tx/v1beta1/txs/${'A'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(5);
  });

  it('blocks/latest, node_info, future heights and unknown routes', async () => {
    const latest = await json<{
      block: { header: { height: string } };
      sdk_block: { header: { proposer_address: string } };
    }>(`${urls.rest}/cosmos/base/tendermint/v1beta1/blocks/latest`);
    expect(latest.body.block.header.height).toBe('50');
    expect(latest.body.sdk_block.header.proposer_address).toMatch(/^initvalcons1/);
    const info = await json<{ application_version: { version: string } }>(
      `${urls.rest}/cosmos/base/tendermint/v1beta1/node_info`,
    );
    expect(info.body.application_version.version).toBe('v1.1.4');
    const future = await json<{ code: number; message: string }>(
      `${urls.rest}/cosmos/tx/v1beta1/txs/block/51`,
    );
    expect(future.status).toBe(400);
    expect(future.body.message).toBe('requested block height is bigger then the chain length');
    const unknown = await json<{ code: number }>(`${urls.rest}/no/such/route`);
    expect(unknown.status).toBe(501);
  });

  it('serves the ground truth at /sim/v1/truth/block/{h}', async () => {
    const res = await json(`${urls.rest}/sim/v1/truth/block/12`);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(sim.truth.block(12))));
  });
});
