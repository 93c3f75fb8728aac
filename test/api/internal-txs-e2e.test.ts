import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import { internalTxTruth, type InternalTxJson } from '../helpers/truth-internal-txs.js';
import { createHarness, walk, type Harness } from './harness.js';

const HEAD = 30;
const BASE = '/indexer/tx/v1/evm-internal-txs';

/**
 * The four evm-internal-txs routes over an ingested EVM simulator: every walk, in both directions
 * and at several limits, equals the simulator's traces; bad input gets 400/404 JSON.
 */
describe.each(testDbFactories())('EVM internal tx routes on $name', (factory) => {
  let h: Harness;
  let indexed: IndexedSimulator;
  let truth: InternalTxJson[];
  beforeAll(async () => {
    const chainId = 'internal-evm-1';
    h = await createHarness(factory, { vm: 'evm', blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    indexed = await indexSimulator({ db: h.db, vm: 'evm', head: HEAD, txsPerBlock: '0-5', sim: { chainId } });
    truth = internalTxTruth(indexed.sim, HEAD);
  }, 120_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  const expectWalks = async (path: string, expected: InternalTxJson[], limits = ['1', '7', '1000']) => {
    for (const limit of limits) {
      for (const reverse of ['true', 'false']) {
        const { items, total } = await walk(h, path, 'internal_txs', {
          'pagination.limit': limit,
          'pagination.reverse': reverse,
        });
        expect(items, `${path} limit ${limit} reverse ${reverse}`).toEqual(
          reverse === 'true' ? [...expected].reverse() : expected,
        );
        expect(total).toBe(String(expected.length));
      }
    }
  };

  it('lists every frame of the chain, and /status reports the stage height', async () => {
    expect(truth.length).toBeGreaterThan(HEAD);
    // Calls inside calls, and siblings (the simulator nests one level; deeper trees are covered by
    // the collector's unit test and the anvil test).
    expect(truth.some((f) => f.parent_index === 0 && f.index === 2)).toBe(true);
    await expectWalks(BASE, truth);
    const status = (await h.get('/status')).json as Record<string, unknown>;
    expect(status).toMatchObject({ height: HEAD, internal_tx_height: HEAD });
  });

  it('by height and by tx hash equal the truth; a known tx without frames is an empty list', async () => {
    for (let height = 1; height <= HEAD; height++) {
      await expectWalks(
        `${BASE}/by_height/${height}`,
        truth.filter((f) => f.height === height),
        ['2', '1000'],
      );
    }
    for (const hash of new Set(truth.map((f) => f.hash))) {
      await expectWalks(
        `${BASE}/${hash}`,
        truth.filter((f) => f.hash === hash),
        ['1', '1000'],
      );
      // Hashes are matched in any case and without 0x.
      const bare = await h.get(`${BASE}/${hash.slice(2).toUpperCase()}`);
      expect((bare.json as { internal_txs: unknown[] }).internal_txs.length).toBeGreaterThan(0);
    }
    // EVM txs the node traces without frames do not exist in the simulator; an EVM receipt that is
    // not an Ethereum tx (a Cosmos tx's mirror) is known and has none.
    const { rows } = await h.db.query<{ hash: Uint8Array }>('SELECT hash FROM evm_tx');
    const traced = new Set(truth.map((f) => f.hash));
    const mirror = rows.map((r) => '0x' + Buffer.from(r.hash).toString('hex')).find((x) => !traced.has(x));
    if (mirror) {
      expect((await h.get(`${BASE}/${mirror}`)).json).toEqual({
        internal_txs: [],
        pagination: { previous_key: null, next_key: null, total: '0' },
      });
    }
  });

  it('by account lists the frames the account calls or is called in', async () => {
    const accounts = [...new Set(truth.flatMap((f) => [f.from, f.to]).filter(Boolean))];
    expect(accounts.length).toBeGreaterThan(2);
    for (const account of accounts.slice(0, 12)) {
      await expectWalks(
        `${BASE}/by_account/${account}`,
        truth.filter((f) => f.from === account || f.to === account),
        ['3', '1000'],
      );
    }
    const unknown = `${BASE}/by_account/0x${'12'.repeat(20)}`;
    expect((await h.get(unknown)).json).toEqual({
      internal_txs: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
  });

  it('answers bad input with 400/404 JSON naming the parameter, never a 500', async () => {
    const expectError = async (url: string, status: number, message: string) => {
      const res = await h.app.inject({ url });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      expect((JSON.parse(res.body) as { message: string }).message).toBe(message);
    };
    await expectError(`${BASE}/0x${'ab'.repeat(32)}`, 404, 'transaction not found');
    await expectError(`${BASE}/0x`, 404, 'transaction not found');
    await expectError(`${BASE}/zz`, 400, 'invalid hash format');
    // Pagination is checked before the hash (docs/api.md §4.10).
    await expectError(`${BASE}/zz?pagination.limit=0`, 400, 'pagination.limit must be between 1 and 1000');
    await expectError(
      `${BASE}/by_height/abc`,
      400,
      '[INVALID_VALUE] invalid value for height: abc (must be a valid integer)',
    );
    await expectError(
      `${BASE}/by_account/init%31`,
      400,
      '[INVALID_VALUE] invalid value for account: init%31 (invalid address format)',
    );
    await expectError(`${BASE}?pagination.offset=-1`, 400, 'pagination.offset cannot be negative');
    const off = await h.appWith({ INTERNAL_TX: 'false' });
    const res = await off.inject({ url: BASE });
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({
      code: 12,
      message: 'evm routes are not available on this chain',
    });
  });
});
