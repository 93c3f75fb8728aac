import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const TXS = '/indexer/tx/v1/txs';
const ACCOUNT = '/indexer/tx/v1/txs/by_account';

/** docs/api.md §10: bad input of every kind answers the right status and JSON body. */
describe.each(testDbFactories())('read API input matrix on $name', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'move', blocks: 25 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const expectError = async (url: string, status: number, code: number, message: string, method = 'GET') => {
    const res = await h.app.inject({ method: method as 'GET', url });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    expect(res.headers['content-type']).toBe('application/json');
    if (method !== 'HEAD') expect(JSON.parse(res.body)).toEqual({ code, message, details: [] });
  };
  const pagination = async (url: string) =>
    (JSON.parse((await h.app.inject({ url })).body) as { pagination: Record<string, unknown> }).pagination;

  it('rejects out-of-range limits and offsets, falls back on unparsable ones', async () => {
    for (const limit of ['0', '1001', '-1', '%2B1001']) {
      await expectError(
        `${TXS}?pagination.limit=${limit}`,
        400,
        3,
        'pagination.limit must be between 1 and 1000',
      );
    }
    await expectError(`${TXS}?pagination.offset=-1`, 400, 3, 'pagination.offset cannot be negative');
    // limit is checked before offset
    await expectError(
      `${TXS}?pagination.offset=-1&pagination.limit=0`,
      400,
      3,
      'pagination.limit must be between 1 and 1000',
    );
    for (const q of [
      'pagination.limit=+5',
      'pagination.limit=abc',
      'pagination.limit=5.0',
      'pagination.offset=abc',
      'pagination.count_total=garbage',
    ]) {
      expect((await h.app.inject({ url: `${TXS}?${q}` })).statusCode).toBe(200);
    }
    const res = await h.get(`${TXS}?pagination.limit=abc&pagination.count_total=0`);
    const body = res.json as { txs: unknown[]; pagination: { total: string } };
    expect(body.txs.length).toBe(Math.min(100, h.chain.txs.length));
    expect(body.pagination.total).toBe('0');
  });

  it('decodes pagination keys like the reference', async () => {
    await expectError(
      `${TXS}?pagination.key=%25%25%25`,
      400,
      3,
      'pagination.key must be a valid base64 encoded string',
    );
    await expectError(
      `${TXS}?pagination.key=abc`,
      400,
      3,
      'pagination.key must be a valid base64 encoded string',
    );
    await expectError(
      `${TXS}?pagination.key=${b64('-1')}`,
      400,
      3,
      'pagination.key must decode to a nonnegative integer',
    );
    await expectError(
      `${TXS}?pagination.key=${b64('x')}`,
      400,
      3,
      'pagination.key must decode to a nonnegative integer',
    );
    await expectError(
      `${TXS}?pagination.key=${encodeURIComponent(b64('{bad'))}`,
      400,
      3,
      'invalid pagination.key format',
    );
    // Integer key = offset; the route keeps its cursor keys. {} switches to offset mode (integer keys).
    const n = h.chain.txs.length;
    const p1 = await pagination(`${TXS}?pagination.limit=2&pagination.key=${b64('2')}`);
    expect(p1).toEqual({ previous_key: null, next_key: b64(`{"sequence":${n - 3}}`), total: String(n) });
    const p3 = await pagination(`${TXS}?pagination.limit=2&pagination.key=${b64('{}')}&pagination.offset=4`);
    expect(p3).toEqual({ previous_key: b64('2'), next_key: b64('6'), total: String(n) });
    const p2 = await pagination(`${TXS}?pagination.limit=2&pagination.key=${b64('{}')}`);
    expect(p2).toEqual({ previous_key: null, next_key: b64('2'), total: String(n) });
    // Odd cursor values never fail: they fall back to offset paging with cursor keys.
    for (const odd of [
      '{"sequence":"x"}',
      '{"sequence":1.5}',
      '{"sequence":1e300}',
      '{"height":3}',
      '{"sequence":-4}',
    ]) {
      expect(
        (await h.app.inject({ url: `${TXS}?pagination.key=${encodeURIComponent(b64(odd))}` })).statusCode,
      ).toBe(200);
    }
    // A cursor past the end gives an empty final page.
    const end = await pagination(`${TXS}?pagination.key=${encodeURIComponent(b64('{"sequence":1}'))}`);
    expect(end).toEqual({ previous_key: null, next_key: null, total: String(n) });
    // next_key only when more rows exist.
    expect((await pagination(`${TXS}?pagination.limit=${n}`)).next_key).toBeNull();
    expect((await pagination(`${TXS}?pagination.limit=${n - 1}`)).next_key).toBe(b64('{"sequence":2}'));
  });

  it('parses accounts per docs/api.md §2.6', async () => {
    const bad = ['cosmos1abc', 'initvaloper1abc', '0X12', `0x${'1'.repeat(65)}`, 'zz', `${'g'.repeat(40)}`];
    for (const account of bad) {
      await expectError(
        `${ACCOUNT}/${account}`,
        400,
        3,
        `[INVALID_VALUE] invalid value for account: ${account} (invalid address format)`,
      );
    }
    // account is checked before pagination
    await expectError(
      `${ACCOUNT}/cosmos1abc?pagination.limit=0`,
      400,
      3,
      '[INVALID_VALUE] invalid value for account: cosmos1abc (invalid address format)',
    );
    const unknown = await h.get(`${ACCOUNT}/0x1?pagination.offset=200`);
    expect(unknown.json).toEqual({
      txs: [],
      pagination: { previous_key: 'MTAw', next_key: null, total: '0' },
    });
    // 32-byte value with 12 leading zero bytes collapses to the 20-byte account.
    const busyHex =
      '0x' +
      '00'.repeat(12) +
      Buffer.from(
        h.chain.accounts[0]
          ? (await import('../../src/shared/address.js')).accountBytesFromString(h.chain.accounts[0], 'init')
          : [],
      ).toString('hex');
    const padded = await h.get(`${ACCOUNT}/${busyHex}?pagination.limit=1`);
    expect((padded.json as { txs: unknown[] }).txs.length).toBe(1);
  });

  it('parses hashes and heights per docs/api.md §2.5 and §2.8', async () => {
    await expectError(`${TXS}/zz`, 400, 3, 'invalid hash format');
    await expectError(`${TXS}/by_account`, 400, 3, 'invalid hash format');
    await expectError(`${TXS}/by_height`, 400, 3, 'invalid hash format');
    await expectError(`${TXS}/00`, 404, 5, '[NOT_FOUND] transaction not found');
    await expectError(`${TXS}/0x`, 404, 5, '[NOT_FOUND] transaction not found');
    await expectError(`${TXS}/abc`, 404, 5, '[NOT_FOUND] transaction not found');
    for (const [raw, shown, why] of [
      ['abc', 'abc', 'must be a valid integer'],
      ['0', '0', 'must be a positive integer'],
      ['-5', '-5', 'must be a positive integer'],
      ['99999999999999999999', '99999999999999999999', 'must be a valid integer'],
    ]) {
      const message = `[INVALID_VALUE] invalid value for height: ${shown} (${why})`;
      await expectError(`/indexer/block/v1/blocks/${raw}`, 400, 3, message);
      await expectError(`${TXS}/by_height/${raw}?pagination.limit=0`, 400, 3, message);
    }
    await expectError('/indexer/block/v1/blocks/99999999', 404, 5, '[NOT_FOUND] block not found');
    // Path parameters are not percent-decoded (docs/api.md §1.2).
    await expectError(
      `${TXS}/by_height/%31`,
      400,
      3,
      '[INVALID_VALUE] invalid value for height: %31 (must be a valid integer)',
    );
    await expectError(
      `${ACCOUNT}/init%31`,
      400,
      3,
      '[INVALID_VALUE] invalid value for account: init%31 (invalid address format)',
    );
    expect((await h.get('/indexer/block/v1/blocks/+007')).status).toBe(200);
    expect((await h.get(`${TXS}/by_height/99999999`)).json).toEqual({
      txs: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
  });

  it('answers unknown routes, wrong methods and other VMs’ routes with JSON', async () => {
    await expectError('/nope', 404, 5, 'Cannot GET /nope');
    await expectError(`${TXS}/%zz`, 400, 3, "'/indexer/tx/v1/txs/%zz' is not a valid url component");
    const long = `0x${'a'.repeat(300)}`;
    await expectError(
      `${ACCOUNT}/${long}`,
      400,
      3,
      `[INVALID_VALUE] invalid value for account: ${long} (invalid address format)`,
    );
    await expectError(TXS, 405, 12, 'Method Not Allowed', 'POST');
    await expectError('/indexer/tx/v1/evm-txs', 404, 12, 'evm routes are not available on this chain');
    await expectError(
      '/indexer/tx/v1/evm-txs/by_height/1',
      404,
      12,
      'evm routes are not available on this chain',
    );
    // The four evm-internal-txs routes answer code 12 on Move (this harness) and on Wasm.
    const internal = [
      '/indexer/tx/v1/evm-internal-txs',
      `/indexer/tx/v1/evm-internal-txs/by_account/init1${'q'.repeat(38)}`,
      '/indexer/tx/v1/evm-internal-txs/by_height/2',
      `/indexer/tx/v1/evm-internal-txs/0x${'ab'.repeat(32)}`,
    ];
    const wasm = await h.appWith({ VM_TYPE: 'wasm' });
    for (const url of internal) {
      await expectError(url, 404, 12, 'evm routes are not available on this chain');
      const res = await wasm.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.body)).toEqual({
        code: 12,
        message: 'evm routes are not available on this chain',
        details: [],
      });
    }
    // The rich list is served on every VM (docs/api.md §0.4); nothing indexed here holds uinit.
    expect((await h.get('/indexer/richlist/v1/uinit')).json).toEqual({
      holders: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
    // Paths are case-insensitive and ignore a trailing slash; HEAD works.
    expect((await h.app.inject({ url: '/INDEXER/TX/V1/TXS/' })).statusCode).toBe(200);
    const head = await h.app.inject({ method: 'HEAD', url: '/status' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('caches per route with X-Cache and honours Cache-Control', async () => {
    const cached = await h.appWith({ API_CACHE: 'true' });
    const get = (url: string, headers: Record<string, string> = {}) => cached.inject({ url, headers });
    const url = '/indexer/block/v1/blocks?pagination.limit=2';
    const first = await get(url);
    expect(first.headers['x-cache']).toBe('miss');
    const second = await get(url);
    expect(second.headers['x-cache']).toBe('hit');
    expect(second.body).toBe(first.body);
    expect((await get(url, { 'cache-control': 'no-store' })).headers['x-cache']).toBeUndefined();
    expect((await get(url, { 'cache-control': 'no-cache' })).headers['x-cache']).toBe('miss');
    expect((await get(`${url}&x=1`)).headers['x-cache']).toBe('miss');
    const bad = await get('/indexer/block/v1/blocks/0');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['x-cache']).toBeUndefined();
    expect((await get('/indexer/block/v1/blocks/0')).headers['x-cache']).toBeUndefined();
  });

  it('applies CORS rules and compression', async () => {
    const cors = await h.appWith({
      CORS_ENABLED: 'true',
      CORS_ALLOW_ORIGINS: 'https://Exact.io, *.example.com',
      CORS_MAX_AGE: '60',
    });
    {
      const at = (origin: string) => cors.inject({ url: '/health', headers: { origin } });
      expect((await at('https://EXACT.io')).headers['access-control-allow-origin']).toBe('https://exact.io');
      expect((await at('https://app.example.com')).headers['access-control-allow-origin']).toBe(
        'https://app.example.com',
      );
      const denied = await at('https://example.com');
      expect(denied.statusCode).toBe(200);
      expect(denied.headers['access-control-allow-origin']).toBeUndefined();
      expect(denied.headers.vary).toBe('Origin');
      const preflight = await cors.inject({
        method: 'OPTIONS',
        url: TXS,
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,OPTIONS');
      expect(preflight.headers['access-control-allow-headers']).toBe(
        'Origin,Content-Type,Accept,Authorization,X-Requested-With',
      );
      expect(preflight.headers['access-control-max-age']).toBe('60');
    }
    // A default install (no CORS_* variables) answers every origin, without credentials.
    const wildcard = await h.appWith({});
    const res = await wildcard.inject({ url: '/health', headers: { origin: 'https://any.where' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
    const off = await h.appWith({ CORS_ENABLED: 'false' });
    const closed = await off.inject({ url: '/health', headers: { origin: 'https://any.where' } });
    expect(closed.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await h.app.inject({ url: TXS });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await h.app.inject({ url: TXS, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    const br = await h.app.inject({ url: TXS, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
  });
});
