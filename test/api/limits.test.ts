import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { testDbFactories } from '../helpers/db.js';
import { gateDb } from './gated-db.js';
import { createHarness, type Harness } from './harness.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const TXS = '/indexer/tx/v1/txs';
const BLOCKS = '/indexer/block/v1/blocks';
const MSG_SEND = 'cosmos.bank.v1beta1.MsgSend';

interface ListBody {
  txs?: { txhash: string }[];
  blocks?: { height: string }[];
  pagination: { next_key: string | null; previous_key: string | null; total: string };
}

/** Issue 12: bounded work per request, NUL-bearing text, the optional rate limit and expensive-query cap. */
describe.each(testDbFactories())('request limits on $name', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'move', blocks: 25 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const list = async (app: FastifyInstance, url: string) => {
    const res = await app.inject({ url });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return JSON.parse(res.body) as ListBody;
  };
  const expect400 = async (app: FastifyInstance, url: string, message: string) => {
    const res = await app.inject({ url });
    expect(res.statusCode, url).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ code: 3, message, details: [] });
  };
  const limitText = (offset: number, max: number) =>
    `pagination offset ${offset} is above the limit of ${max} (API_MAX_OFFSET) for this query; ` +
    'page with the next_key cursor or narrow the filter instead';

  it('serves any offset of the unfiltered tx and block lists as a key look-up, equal to the slice', async () => {
    const hashes = h.chain.txs.map((t) => t.hash); // sequence order
    const heights = h.chain.blocks.map((b) => String(b.height));
    const n = hashes.length;
    for (const reverse of [true, false]) {
      const txOrder = reverse ? [...hashes].reverse() : hashes;
      const blockOrder = reverse ? [...heights].reverse() : heights;
      for (const offset of [0, 1, 2, 7, n - 2, n - 1, n, n + 3, Number.MAX_SAFE_INTEGER]) {
        const q = `pagination.limit=3&pagination.reverse=${reverse}`;
        const byOffset = await list(h.app, `${TXS}?${q}&pagination.offset=${offset}`);
        const byKey = await list(h.app, `${TXS}?${q}&pagination.key=${b64(String(offset))}`);
        const expected = txOrder.slice(offset, offset + 3);
        expect(byOffset.txs?.map((t) => t.txhash)).toEqual(expected);
        expect(byKey.txs?.map((t) => t.txhash)).toEqual(expected);
        expect(byOffset.pagination.next_key !== null).toBe(offset + 3 < n);
        const blocks = await list(h.app, `${BLOCKS}?${q}&pagination.offset=${offset}`);
        expect(blocks.blocks?.map((b) => b.height)).toEqual(blockOrder.slice(offset, offset + 3));
      }
    }
  });

  it('refuses offset scans past API_MAX_OFFSET with a 400 naming it, and serves them up to it', async () => {
    const app = await h.appWith({ API_MAX_OFFSET: '2' });
    const account = h.chain.txs[0]?.signer ?? '';
    const scans = [
      `${TXS}/by_account/${account}?`,
      `${TXS}?msgs=${MSG_SEND}&`,
      `${TXS}/by_height/${h.chain.txs[0]?.height ?? 1}?`,
    ];
    for (const prefix of scans) {
      await list(app, `${prefix}pagination.offset=2`);
      await expect400(app, `${prefix}pagination.offset=3`, limitText(3, 2));
      await expect400(
        app,
        `${prefix}pagination.key=${b64('9007199254740991')}`,
        limitText(9007199254740991, 2),
      );
      // A JSON cursor is a key look-up at any depth.
      await list(app, `${prefix}pagination.key=${b64('{"sequence":1000000000}')}`);
    }
    // Key look-ups are not limited; the default limit is 10000.
    expect((await list(app, `${TXS}?pagination.offset=9007199254740991`)).txs).toEqual([]);
    expect((await list(app, `${BLOCKS}?pagination.offset=9007199254740991`)).blocks).toEqual([]);
    await expect400(h.app, `${scans[0]}pagination.offset=10001`, limitText(10001, 10000));
    // Input errors still come first, in the spec's order (docs/api.md §4.10).
    await expect400(
      app,
      `${TXS}/by_height/0?pagination.offset=99`,
      '[INVALID_VALUE] invalid value for height: 0 (must be a positive integer)',
    );
  });

  it('treats a message type holding NUL as one that never occurred: empty, total "0", never a 500', async () => {
    const account = h.chain.txs[0]?.signer ?? '';
    for (const path of [TXS, `${TXS}/by_account/${account}`, `${TXS}/by_height/${h.chain.txs[0]?.height}`]) {
      for (const msgs of ['%00', `${MSG_SEND}%00`, '%00,%00']) {
        const body = await list(h.app, `${path}?msgs=${msgs}`);
        expect(body.txs).toEqual([]);
        expect(body.pagination).toEqual({ previous_key: null, next_key: null, total: '0' });
      }
      // OR'ed with a real type, the NUL name adds nothing.
      const withNul = await list(h.app, `${path}?msgs=%00&msgs=${MSG_SEND}`);
      expect(withNul).toEqual(await list(h.app, `${path}?msgs=${MSG_SEND}`));
    }
  });

  it('caps concurrent expensive queries when asked: a count over the cap says "-1", an offset scan 503', async () => {
    // An offset scan over an account's edges holds the only slot.
    const gated = gateDb(h.db, (sql) => sql.includes('FROM tx_accounts a WHERE') && sql.includes('OFFSET'));
    const app = await createApiApp({
      options: loadApiOptions({
        CHAIN_ID: h.chain.chainId,
        VM_TYPE: 'move',
        API_CACHE: 'false',
        API_MAX_EXPENSIVE_QUERIES: '1',
      }),
      db: gated.db,
      logger: silentLogger(),
      metrics: createMetricsRegistry({ defaultMetrics: false }),
    });
    try {
      const account = h.chain.txs[0]?.signer ?? '';
      // Holds the only slot: the account's rows past an offset wait at the gate.
      const held = app.inject({
        url: `${TXS}/by_account/${account}?pagination.offset=1&pagination.count_total=false`,
      });
      await gated.entered;
      const height = h.chain.txs[0]?.height;
      const inBlock = h.chain.txs.filter((t) => t.height === height);
      const counted = await list(app, `${TXS}/by_height/${height}`);
      expect(counted.pagination.total).toBe('-1');
      expect(counted.txs?.length).toBe(inBlock.length);
      // A msgs total is a read of the counts kept per message-type set, not a count: never capped.
      const sends = h.chain.txs.filter((t) => t.msgTypes.includes(MSG_SEND));
      expect((await list(app, `${TXS}?msgs=${MSG_SEND}`)).pagination.total).toBe(String(sends.length));
      const scan = await app.inject({
        url: `${TXS}/by_height/${h.chain.txs[0]?.height}?pagination.offset=1&pagination.count_total=false`,
      });
      expect(scan.statusCode).toBe(503);
      expect(scan.headers['retry-after']).toBe('1');
      expect(JSON.parse(scan.body)).toEqual({
        code: 14,
        message: 'too many expensive queries in progress (API_MAX_EXPENSIVE_QUERIES=1); retry shortly',
        details: [],
      });
      // Key look-ups are never capped.
      expect((await list(app, `${TXS}?pagination.offset=1`)).txs?.length).toBeGreaterThan(0);
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(metrics).toContain('rollup_indexer_api_refused_total{reason="expensive_cap"} 2');
      gated.release();
      const first = JSON.parse((await held).body) as ListBody;
      const expected = h.chain.txs.filter((t) => t.accounts.includes(account));
      expect(first.txs?.map((t) => t.txhash)).toEqual(
        expected
          .map((t) => t.hash)
          .reverse()
          .slice(1, 101),
      );
      // The slot is free again: the count is exact.
      expect((await list(app, `${TXS}/by_height/${height}`)).pagination.total).toBe(String(inBlock.length));
    } finally {
      gated.release();
      await app.close();
    }
  });

  it('rate-limits each client when asked: 429 JSON with Retry-After, probes exempt', async () => {
    const app = await h.appWith({ API_RATE_LIMIT: '1', API_RATE_LIMIT_BURST: '2' });
    // 40 at once from one address: at most 2 + (seconds elapsed) pass.
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.inject({ url: `${BLOCKS}` })));
    const limited = answers.filter((a) => a.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 429)).toBe(true);
    expect(limited[0]?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(limited[0]?.body ?? '')).toEqual({
      code: 8,
      message: 'Too Many Requests: at most 1 requests per second per client (API_RATE_LIMIT)',
      details: [],
    });
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
    const metrics = (await app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain(`rollup_indexer_api_refused_total{reason="rate_limit"} ${limited.length}`);
    // Another client address has its own bucket.
    expect((await app.inject({ url: BLOCKS, remoteAddress: '10.0.0.9' })).statusCode).toBe(200);
  });
});

describe.each(testDbFactories())('EVM tx offsets on $name', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'evm', blocks: 12 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('serves any offset of /evm-txs as a key look-up, equal to the slice', async () => {
    const hashes = h.chain.evmTxs.map((t) => `0x${t.hash.toLowerCase()}`);
    const n = hashes.length;
    expect(n).toBeGreaterThan(5);
    for (const reverse of [true, false]) {
      const order = reverse ? [...hashes].reverse() : hashes;
      for (const offset of [0, 1, 4, n - 1, n, Number.MAX_SAFE_INTEGER]) {
        const res = await h.app.inject({
          url: `/indexer/tx/v1/evm-txs?pagination.limit=2&pagination.reverse=${reverse}&pagination.offset=${offset}`,
        });
        const body = JSON.parse(res.body) as { txs: { transactionHash: string }[] };
        expect(body.txs.map((t) => t.transactionHash)).toEqual(order.slice(offset, offset + 2));
      }
    }
  });
});
